/**
 * Flow control's throttle (a token bucket per key: held runs start as it refills) and debounce
 * (one pending run per key that starts once events stop, with the latest event's data). The
 * clock is moved by the test; nothing here waits on the wall clock to decide.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createSkewedClock } from '../helpers/clock.ts'
import { eventually } from '../helpers/eventually.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'

const echo = linear({ say: { type: 'log', payload: { message: 'got {{$trigger.body.n}}' } } }, ['say'])

for (const kind of storeKinds()) {
  describe(`flow control: throttle and debounce (${kind})`, () => {
    const clock = createSkewedClock()
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind, {}, { clock })
    })
    afterAll(() => t.close())

    const hook = (secret: string, body: unknown) => t.call('POST', `/v1/webhooks/${secret}`, { key: null, body })
    const runsOf = async (workflowId: string) =>
      (await t.call('GET', `/v1/workflows/${workflowId}/runs?limit=100`)).body.data.items as {
        id: string
        status: string
        waitingFor?: { reason: string; key: string }
      }[]
    const succeeded = async (workflowId: string) => (await runsOf(workflowId)).filter((r) => r.status === 'success')

    it('throttle: starts the burst, then one run per refill, and drops nothing', async () => {
      const w = await createLive(t, { definition: echo, flowControl: { throttle: { limit: 2, periodMs: 60_000 } } })
      for (let n = 0; n < 5; n++) expect((await hook(w.triggerSecret, { n })).body.data.action).toBe('triggered')
      await eventually(async () => (await succeeded(w.id)).length === 2, 'the burst of two')
      const waiting = (await runsOf(w.id)).filter((r) => r.waitingFor)
      expect(waiting).toHaveLength(3)
      for (const r of waiting)
        expect(r).toMatchObject({ status: 'waiting', waitingFor: { reason: 'throttle', key: '' } })
      // Half a period refills one start: one more run, and no more while the clock stands still.
      clock.skip(30_000)
      await eventually(async () => (await succeeded(w.id)).length === 3, 'one start per refill')
      expect(await succeeded(w.id)).toHaveLength(3)
      clock.skip(60_000)
      await eventually(async () => (await succeeded(w.id)).length === 5, 'the rest, as the bucket refills')
      // A key without waiting runs starts at once again once the bucket has refilled.
      clock.skip(60_000)
      const again = (await hook(w.triggerSecret, { n: 9 })).body.data.runIds[0]
      expect((await waitForRun(t, again)).status).toBe('success')
    })

    it('debounce: 100 events within the period start one run, with the last event’s data', async () => {
      const w = await createLive(t, {
        definition: echo,
        flowControl: { debounce: { key: '{{root.result.body.doc}}', periodMs: 10_000 } },
      })
      const answers = []
      for (let n = 0; n < 100; n++) answers.push((await hook(w.triggerSecret, { doc: 'd1', n })).body.data)
      const runId = answers[0].runIds[0]
      for (const a of answers) expect(a).toMatchObject({ action: 'debounced', runIds: [runId] })
      const pending = (await t.call('GET', `/v1/runs/${runId}`)).body.data
      expect(pending).toMatchObject({ status: 'waiting', waitingFor: { reason: 'debounce', key: 'd1' } })
      // Another key has a pending run of its own.
      const other = (await hook(w.triggerSecret, { doc: 'd2', n: -1 })).body.data.runIds[0]
      expect(other).not.toBe(runId)
      clock.skip(10_001)
      const run = await waitForRun(t, runId)
      expect(run.status).toBe('success')
      expect(run.nodes.say.result.message).toBe('got 99')
      expect((await waitForRun(t, other)).nodes.say.result.message).toBe('got -1')
      expect(await runsOf(w.id)).toHaveLength(2)
    })

    it('debounce: a steady stream of events still starts its run after maxWaitMs', async () => {
      const w = await createLive(t, {
        definition: echo,
        flowControl: { debounce: { periodMs: 10_000, maxWaitMs: 15_000 } },
      })
      const runId = (await hook(w.triggerSecret, { n: 1 })).body.data.runIds[0]
      clock.skip(8_000)
      expect((await hook(w.triggerSecret, { n: 2 })).body.data.runIds).toEqual([runId])
      clock.skip(8_000)
      const run = await waitForRun(t, runId)
      expect(run.nodes.say.result.message).toBe('got 2')
      // The next event opens a new pending run.
      const next = (await hook(w.triggerSecret, { n: 3 })).body.data
      expect(next.action).toBe('debounced')
      expect(next.runIds[0]).not.toBe(runId)
    })
  })
}
