/**
 * A bounded load test against the real server process: thousands of webhook-started runs,
 * with repeated idempotency keys among them; none lost, none duplicated.
 */
import { describe, expect, it } from 'bun:test'
import { api } from '../helpers/process.ts'
import { publishWorkflow, servedPerStore } from '../helpers/served.ts'
import { storeKinds } from '../helpers/services.ts'
import { queryDatabase } from '../helpers/stores.ts'

const KEY = 'svcsk_load_test_bootstrap_key_0123456789abcdef'
const UNIQUE = 3000
const REPEATS = 300
const CONCURRENCY = 64

for (const kind of storeKinds()) {
  describe(`webhook load (${kind})`, () => {
    const served = servedPerStore(kind, KEY)

    it(`accepts ${UNIQUE} runs and ${REPEATS} repeats, and runs each exactly once`, async () => {
      const { server, env } = served
      const w = await publishWorkflow(server.url, KEY, {
        root: { type: 'manual', children: ['a'] },
        a: { type: 'log', payload: { message: 'order {{$trigger.body.i}}' }, children: ['b'] },
        b: { type: 'set-variable', payload: { name: 'last', value: '{{$trigger.body.i}}' } },
      })
      const requests = [
        ...Array.from({ length: UNIQUE }, (_, i) => i),
        ...Array.from({ length: REPEATS }, (_, i) => (i * 7) % UNIQUE),
      ]
      let next = 0
      const outcomes: Array<{ key: number; action: string; runId: string }> = []
      const worker = async () => {
        while (next < requests.length) {
          const i = requests[next++]
          const response = await fetch(`${server.url}/v1/webhooks/${w.triggerSecret}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': `order-${i}` },
            body: JSON.stringify({ i }),
          })
          expect(response.status).toBe(200)
          const body = (await response.json()) as { data: { action: string; runIds: string[] } }
          outcomes.push({ key: i, action: body.data.action, runId: body.data.runIds[0] })
        }
      }
      await Promise.all(Array.from({ length: CONCURRENCY }, worker))
      expect(outcomes.filter((o) => o.action === 'triggered')).toHaveLength(UNIQUE)
      const byKey = new Map<number, Set<string>>()
      for (const o of outcomes) byKey.set(o.key, (byKey.get(o.key) ?? new Set()).add(o.runId))
      expect([...byKey.values()].every((ids) => ids.size === 1)).toBe(true)

      const deadline = Date.now() + 60_000
      let counts: Record<string, number> = {}
      while (Date.now() < deadline) {
        counts = (await api(server.url, 'GET', `/v1/runs/status-counts?workflowId=${w.id}`, KEY)).body.data.counts
        if (counts.success === UNIQUE) break
        await Bun.sleep(100)
      }
      expect(counts).toMatchObject({ success: UNIQUE, failure: 0, running: 0 })
      const stored = await queryDatabase<{ n: number; keys: number }>(
        env,
        'SELECT COUNT(*) AS n, COUNT(DISTINCT idempotency_key) AS keys FROM runs WHERE workflow_id = $1',
        [w.id],
      )
      expect(Number(stored[0].n)).toBe(UNIQUE)
      expect(Number(stored[0].keys)).toBe(UNIQUE)
      const ended = await queryDatabase<{ n: number }>(
        env,
        "SELECT COUNT(*) AS n FROM events WHERE workflow_id = $1 AND type = 'run.succeeded'",
        [w.id],
      )
      expect(Number(ended[0].n)).toBe(UNIQUE)
    }, 120_000)
  })
}
