/**
 * kill -9 the server while execution-hook deliveries are pending and in flight; restart it on
 * the same data; every run and node event reaches the receiver, signed, and an event that
 * arrives twice (it was in flight at the crash) does so with the same webhook-id and body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { verifyWebhook } from '../../core/security/webhook-signature.ts'
import { api, startServer, until } from '../helpers/process.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { servedPerStore } from '../helpers/served.ts'
import { storeKinds } from '../helpers/services.ts'
import { queryDatabase } from '../helpers/stores.ts'

const KEY = 'svcsk_hooks_crash_test_bootstrap_key_0123456789ab'
const RUNS = 30
const CONCURRENCY = 4

for (const kind of storeKinds()) {
  describe(`execution hooks survive kill -9 (${kind})`, () => {
    const served = servedPerStore(kind, KEY, {
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      AUTOMATON_HOOK_CONCURRENCY: String(CONCURRENCY),
      // A lease is 2 × timeout + 1 s: what a Postgres restart waits for the rows that were in flight.
      AUTOMATON_HOOK_TIMEOUT_MS: '1000',
      AUTOMATON_HOOK_POLL_MS: '200',
    })
    let receiver: Receiver

    beforeAll(() => {
      receiver = startReceiver()
      receiver.respond(async () => {
        await Bun.sleep(100)
        return Response.json({ ok: true })
      })
    })
    afterAll(async () => {
      await receiver.stop()
    })

    it('delivers every event after a crash with a backlog, duplicates only with the same webhook-id', async () => {
      const { env } = served
      let { server } = served
      const hook = await api(server.url, 'POST', '/v1/execution-webhooks', KEY, {
        name: 'crash',
        url: `${receiver.url}/events`,
      })
      expect(hook.status).toBe(200)
      const secret: string = hook.body.data.signingSecret
      const w = await api(server.url, 'POST', '/v1/workflows', KEY, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'manual', children: ['a'] }, a: { type: 'log', payload: { message: 'hi' } } },
        },
      })
      const live = (await api(server.url, 'POST', `/v1/workflows/${w.body.data.id}/publish`, KEY)).body.data
      const fired = await Promise.all(
        Array.from({ length: RUNS }, (_, i) =>
          api(server.url, 'POST', `/v1/webhooks/${live.triggerSecret}`, undefined, { i }),
        ),
      )
      const runIds = new Set(fired.map((r) => r.body.data.runIds[0] as string))
      expect(runIds.size).toBe(RUNS)

      // Kill while most deliveries are still waiting: 5 events a run, 4 sent at a time, 100 ms each.
      await until('some deliveries to arrive', async () => receiver.requests.length >= 12)
      await server.stop('SIGKILL')
      const beforeRestart = receiver.requests.length
      expect(beforeRestart).toBeLessThan(RUNS * 5)
      server = await startServer({ env })
      // The new process is the one killed after the tests.
      served.server = server

      // Runs the crash interrupted finish after the restart; then every event of every run is delivered.
      const counts = async () =>
        (await api(server.url, 'GET', `/v1/runs/status-counts?workflowId=${live.id}`, KEY)).body.data.counts
      await until('every run to finish', async () => (await counts()).success === RUNS, 60_000)
      const events = await queryDatabase<{ id: number; run_id: string }>(
        env,
        "SELECT id, run_id FROM events WHERE type LIKE 'run.%' OR type LIKE 'node.%'",
      )
      const expected = new Set(events.filter((e) => runIds.has(e.run_id)).map((e) => `evt_${e.id}`))
      expect(expected.size).toBe(RUNS * 5)
      await until(
        'every event to be delivered',
        async () => {
          const pending = await queryDatabase<{ n: number }>(
            env,
            "SELECT COUNT(*) AS n FROM hook_deliveries WHERE status <> 'success'",
          )
          return (
            Number(pending[0].n) === 0 &&
            new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size >= expected.size
          )
        },
        60_000,
      )

      const byId = new Map<string, string[]>()
      for (const r of receiver.requests) {
        expect(await verifyWebhook(secret, r.headers, r.body)).toBeNull()
        byId.set(r.headers['webhook-id'], [...(byId.get(r.headers['webhook-id']) ?? []), r.body])
      }
      expect(new Set(byId.keys())).toEqual(expected)
      for (const bodies of byId.values()) expect(new Set(bodies).size).toBe(1)
      // Only what was in flight at the crash can arrive twice.
      expect(receiver.requests.length - expected.size).toBeLessThanOrEqual(CONCURRENCY)
      const records = await queryDatabase<{ n: number }>(env, 'SELECT COUNT(*) AS n FROM hook_deliveries')
      expect(Number(records[0].n)).toBe(expected.size)
    }, 90_000)
  })
}
