/**
 * A concurrency key held by a run of a process that died: another process takes the run over,
 * and when it ends there, the key's waiting run starts (Postgres: two processes, one database).
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { createSkewedClock } from '../helpers/clock.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { hold } from '../helpers/flow.ts'
import { createLive, waitForRun } from '../helpers/workflows.ts'

const FAST = { AUTOMATON_WORKER_TIMEOUT_MS: '1000', AUTOMATON_HEARTBEAT_MS: '100' }

describe.skipIf(!storeKinds().includes('postgres'))(
  'flow control: concurrency across a dead process (postgres)',
  () => {
    const clock = createSkewedClock()
    let first: TestSystem
    let second: TestSystem | null = null
    afterAll(async () => {
      await second?.close()
      await first.close()
    })

    it('starts the waiting run once the run taken over from the dead process ends', async () => {
      first = await openTestSystem('postgres', FAST, { clock })
      const w = await createLive(first, { definition: hold, flowControl: { concurrency: { limit: 1 } } })
      const hook = (t: TestSystem) => t.call('POST', `/v1/webhooks/${w.triggerSecret}`, { key: null, body: {} })
      const running = (await hook(first)).body.data.runIds[0]
      const inDelay = (r: { status: string; waitingFor?: unknown; nodes?: { pause?: { status: string } } }) =>
        r.status === 'waiting' && !r.waitingFor && r.nodes?.pause?.status === 'scheduled'
      await waitForRun(first, running, inDelay)
      const held = (await hook(first)).body.data.runIds[0]

      // The first process stops without ending its run; the second finds it silent and takes the run over.
      await first.stop()
      second = await first.openSibling(FAST, { clock })
      clock.skip(5_000)
      const t = second
      expect((await t.call('GET', `/v1/runs/${held}`)).body.data.waitingFor).toEqual({ reason: 'concurrency', key: '' })
      expect((await t.call('POST', `/v1/runs/${running}/cancel`)).status).toBe(200)
      expect((await waitForRun(t, running)).status).toBe('cancelled')
      await waitForRun(t, held, inDelay)
      expect((await t.call('POST', `/v1/runs/${held}/cancel`)).status).toBe(200)
    })
  },
)
