/**
 * Work notifications that could be lost, and are not. A worker that cannot reach the store as it
 * takes a run rejects the notification, so the work queue hands it out again (instead of
 * acknowledging it and leaving the run to the sweep). And the work stream lost under a running
 * deployment (Postgres and NATS; an API process and a worker, both in this process): deleted by
 * hand, or gone with the JetStream store of a NATS server that came back without it. Runs
 * admitted afterwards, and runs whose notifications the lost stream held, run within seconds,
 * without a restart. The workers' sweep waits a minute here (AUTOMATON_WORKER_TIMEOUT_MS), so it
 * cannot be what runs them.
 */
import { afterAll, afterEach, describe, expect, it } from 'bun:test'
import { jetstreamManager } from '@nats-io/jetstream'
import { rmSync } from 'node:fs'
import { connectNats } from '../../adapters/nats/connection.ts'
import { StoreUnavailableError } from '../../core/errors.ts'
import { startNats } from '../helpers/process.ts'
import { TEST_DATABASE_URL, TEST_NATS_URL, warnSkipped } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { tempDir } from '../helpers/tmp.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'

describe('taking a run from the work queue', () => {
  it('rejects the notification when the store fails as the run is taken, and takes it once the store answers', async () => {
    const t = await openTestSystem('sqlite')
    try {
      const w = await createLive(t, {
        definition: linear({ pause: { type: 'delay', payload: { delayMs: 60_000 } } }, ['pause']),
      })
      const runId = (await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: {} } })).body.data.runId
      await waitForRun(t, runId, (r) => r.status === 'waiting')
      const { store } = t.system
      const write = store.write
      store.write = () => Promise.reject(new StoreUnavailableError(new Error('connection refused')))
      const failure = await t.system.engine.executor.take(runId).then(
        () => null,
        (error: unknown) => error,
      )
      store.write = write
      expect(failure).toBeInstanceOf(StoreUnavailableError)
      // Handed out again: now it is taken (a waiting run with nothing to deliver stays put away).
      await t.system.engine.executor.take(runId)
    } finally {
      await t.close()
    }
  })
})

const enabled = Boolean(TEST_DATABASE_URL && TEST_NATS_URL)
if (!enabled)
  warnSkipped(
    'runs across a lost work stream',
    TEST_DATABASE_URL ? 'AUTOMATON_TEST_NATS_URL' : 'AUTOMATON_TEST_DATABASE_URL',
  )

/** Well under the sweep's minute: what the repair promises. */
const WITHIN_MS = 8000

describe.skipIf(!enabled)('runs across a lost work stream (Postgres and NATS)', () => {
  const systems: TestSystem[] = []
  const streams: string[] = []
  afterEach(async () => {
    for (const t of systems.splice(0).reverse()) await t.close()
  })
  afterAll(async () => {
    const nc = await connectNats(TEST_NATS_URL!, 'work-queue-loss-cleanup')
    const jsm = await jetstreamManager(nc)
    for (const stream of streams) await jsm.streams.delete(stream).catch(() => {})
    await nc.close()
  })

  async function deployment(natsUrl: string, withWorker: boolean) {
    const stream = `T_WQLOSS_${Date.now()}_${process.pid}_${streams.length}`
    streams.push(stream)
    const api = await openTestSystem(
      'postgres',
      {
        AUTOMATON_NATS_URL: natsUrl,
        AUTOMATON_NATS_STREAM: stream,
        AUTOMATON_WORKER_TIMEOUT_MS: '60000',
        AUTOMATON_HEARTBEAT_MS: '500',
      },
      { role: 'api' },
    )
    systems.push(api)
    const openWorker = async () => {
      const worker = await api.openSibling({}, { role: 'worker' })
      systems.splice(1, 0, worker)
      return worker
    }
    // A delay first: a run of pure nodes alone would end at admission, in the API process.
    const w = await createLive(api, {
      definition: linear(
        { pause: { type: 'delay', payload: { delayMs: 10 } }, say: { type: 'log', payload: { message: 'hi' } } },
        ['pause', 'say'],
      ),
    })
    const start = async () => {
      const r = await api.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: {} } })
      expect(r.status).toBe(200)
      return r.body.data.runId as string
    }
    return { api, stream, start, worker: withWorker ? await openWorker() : null, openWorker }
  }

  const succeeded = async (api: TestSystem, runIds: string[]) => {
    for (const runId of runIds) expect((await waitForRun(api, runId, undefined, WITHIN_MS)).status).toBe('success')
  }

  it('runs what is admitted after the stream was deleted, and makes the stream again', async () => {
    const { api, stream, start } = await deployment(TEST_NATS_URL!, true)
    await succeeded(api, [await start()])
    const nc = await connectNats(TEST_NATS_URL!, 'work-queue-loss')
    const jsm = await jetstreamManager(nc)
    await jsm.streams.delete(stream)

    const after = []
    for (let i = 0; i < 10; i++) after.push(await start())
    await succeeded(api, after)
    expect((await jsm.streams.info(stream)).config.name).toBe(stream)
    await nc.close()
  })

  it('runs what the deleted stream held, once a worker finds the stream made again', async () => {
    const { api, stream, start, openWorker } = await deployment(TEST_NATS_URL!, false)
    // No worker yet: the notifications wait in the stream, and go with it.
    const held = []
    for (let i = 0; i < 5; i++) held.push(await start())
    const nc = await connectNats(TEST_NATS_URL!, 'work-queue-loss')
    await (await jetstreamManager(nc)).streams.delete(stream)
    await nc.close()

    await openWorker()
    await succeeded(api, held)
  })

  it('runs what is admitted after NATS came back without its JetStream store', async () => {
    const storeDir = tempDir('automaton-nats-')
    let nats = await startNats(storeDir.path)
    try {
      const { api, start } = await deployment(nats.url, true)
      await succeeded(api, [await start()])
      await nats.stop()
      rmSync(storeDir.path, { recursive: true, force: true })
      nats = await startNats(storeDir.path, nats.port)

      const after = []
      for (let i = 0; i < 10; i++) after.push(await start())
      await succeeded(api, after)
    } finally {
      for (const t of systems.splice(0).reverse()) await t.close()
      await nats.stop()
      storeDir.remove()
    }
  })
})
