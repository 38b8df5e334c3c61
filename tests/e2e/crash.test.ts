/**
 * kill -9 the server while runs are in flight and while runs wait on delays; restart it on the
 * same data; every run ends exactly once with the right status, and no node's side effect is
 * repeated except as a retry of the same attempt (same idempotency key).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { api, startServer, until } from '../helpers/process.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { servedPerStore } from '../helpers/served.ts'
import { storeKinds } from '../helpers/services.ts'
import { queryDatabase } from '../helpers/stores.ts'

const KEY = 'svcsk_crash_test_bootstrap_key_0123456789abcdef'
const RUNS = 40

for (const kind of storeKinds()) {
  describe(`kill -9 and restart (${kind})`, () => {
    const HELD = 3
    let release!: () => void
    const held = { count: 0, paths: [] as string[], until: new Promise<void>((resolve) => (release = resolve)) }
    const served = servedPerStore(kind, KEY, {
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      AUTOMATON_WORKER_CONCURRENCY: '16',
      // On Postgres a restarted process cannot know the old one died: it takes its runs over once
      // the old heartbeat is this old (15 s by default).
      AUTOMATON_WORKER_TIMEOUT_MS: '4000',
      AUTOMATON_HEARTBEAT_MS: '1000',
    })
    let receiver: Receiver

    beforeAll(() => {
      receiver = startReceiver()
      receiver.respond(async (req) => {
        // The first calls are held until the process that made them is dead: those nodes must
        // provably run again after the restart.
        if (req.path.startsWith('/inflight') && held.count < HELD) {
          held.count++
          held.paths.push(req.path)
          await held.until
        } else await Bun.sleep(req.path.startsWith('/inflight') ? 300 : 0)
        return Response.json({ ok: true })
      })
    })
    afterAll(async () => {
      await receiver.stop()
    })

    it('finishes every run exactly once after a crash', async () => {
      const { env } = served
      let { server } = served
      const create = async (nodes: Record<string, unknown>) => {
        const w = await api(server.url, 'POST', '/v1/workflows', KEY, {
          definition: { triggerNodeIds: ['root'], nodes },
        })
        expect(w.status).toBe(200)
        const live = await api(server.url, 'POST', `/v1/workflows/${w.body.data.id}/publish`, KEY)
        return live.body.data
      }
      const inflight = await create({
        root: { type: 'manual', children: ['call'] },
        call: { type: 'http-request', payload: { url: `${receiver.url}/inflight/{{$run.id}}` }, children: ['done'] },
        done: { type: 'log', payload: { message: 'done' } },
      })
      const delayed = await create({
        root: { type: 'manual', children: ['pause'] },
        // Long enough for the calls, the crash and the restart to fall inside it on a loaded machine.
        pause: { type: 'delay', payload: { delayMs: 10_000 }, children: ['call'] },
        call: { type: 'http-request', payload: { url: `${receiver.url}/delayed/{{$run.id}}` } },
      })
      const fire = (w: { triggerSecret: string }, i: number) =>
        api(server.url, 'POST', `/v1/webhooks/${w.triggerSecret}`, undefined, { i })
      const counts = (workflowId: string) =>
        api(server.url, 'GET', `/v1/runs/status-counts?workflowId=${workflowId}`, KEY).then((r) => r.body.data.counts)
      // The delayed runs first, all waiting before the calls begin: calls held open take executor
      // slots, and on a loaded machine the executor keeps few going, so delayed runs started
      // beside them could still be queued when their neighbours' delays ended.
      const delayedStarts = await Promise.all(Array.from({ length: RUNS }, (_, i) => fire(delayed, i)))
      await until('delayed runs to wait', async () => (await counts(delayed.id)).waiting === RUNS)
      const inflightStarts = await Promise.all(Array.from({ length: RUNS }, (_, i) => fire(inflight, i)))
      const runIds = [...delayedStarts, ...inflightStarts].map((r) => r.body.data.runIds[0] as string)
      expect(new Set(runIds).size).toBe(RUNS * 2)

      await until(
        'some HTTP calls in flight',
        async () => receiver.requests.filter((r) => r.path.startsWith('/inflight')).length >= 5,
      )
      const before = await counts(inflight.id)
      expect(before.success).toBeLessThan(RUNS) // the crash really happens mid-flight
      // And while every delayed run waits: none has called yet.
      expect(receiver.requests.filter((r) => r.path.startsWith('/delayed'))).toEqual([])

      await server.stop('SIGKILL')
      expect(held.count).toBe(HELD)
      release()
      server = await startServer({ env })
      // The new process is the one killed after the tests.
      served.server = server

      await until(
        'every run to finish',
        async () => {
          const [a, b] = await Promise.all([counts(inflight.id), counts(delayed.id)])
          return (
            a.success + a.failure + a.cancelled + a.partial === RUNS &&
            b.success + b.failure + b.cancelled + b.partial === RUNS
          )
        },
        60_000,
      )
      expect(await counts(inflight.id)).toMatchObject({ success: RUNS, failure: 0, running: 0, waiting: 0 })
      expect(await counts(delayed.id)).toMatchObject({ success: RUNS, failure: 0, running: 0, waiting: 0 })

      const callsOf = (runId: string) => receiver.requests.filter((r) => r.path.endsWith(`/${runId}`))
      for (const runId of runIds)
        expect((await api(server.url, 'GET', `/v1/runs/${runId}`, KEY)).body.data.status).toBe('success')
      // A delayed run waited through the crash and called once, after it.
      const delayedRuns = runIds.slice(0, RUNS)
      expect(delayedRuns.filter((runId) => callsOf(runId).length !== 1)).toEqual([])
      // An in-flight node either answered the dead process or ran again after the restart: one
      // call or two, and a node re-executed repeats the same attempt (one idempotency key).
      const inflightRuns = runIds.slice(RUNS)
      expect(inflightRuns.filter((runId) => callsOf(runId).length !== 1 && callsOf(runId).length !== 2)).toEqual([])
      for (const runId of inflightRuns)
        expect(new Set(callsOf(runId).map((c) => c.headers['idempotency-key'])).size).toBe(1)
      // The held calls never answered the dead process: each of those nodes ran again.
      const heldRuns = held.paths.map((path) => path.split('/').at(-1)!)
      expect(heldRuns.map((runId) => callsOf(runId).length)).toEqual(heldRuns.map(() => 2))
      // The journal: every run ended exactly once, and its sequence has no gap and no repeat.
      const terminal = await queryDatabase<{ run_id: string; n: number }>(
        env,
        "SELECT run_id, COUNT(*) AS n FROM events WHERE type IN ('run.succeeded', 'run.failed', 'run.partial', 'run.cancelled') GROUP BY run_id",
      )
      expect(terminal).toHaveLength(RUNS * 2)
      expect(terminal.every((r) => Number(r.n) === 1)).toBe(true)
      const sequences = await queryDatabase<{ run_id: string; n: number; top: number }>(
        env,
        'SELECT run_id, COUNT(*) AS n, MAX(seq) AS top FROM events WHERE run_id IS NOT NULL GROUP BY run_id',
      )
      for (const s of sequences) expect(Number(s.n)).toBe(Number(s.top))
    }, 120_000)
  })
}
