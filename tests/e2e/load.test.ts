/**
 * A bounded load test against the real server process: thousands of webhook-started runs,
 * with repeated idempotency keys among them; none lost, none duplicated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { api, type ServerProcess, startServer } from '../helpers/process.ts'
import { freshPostgresUrl, storeKinds } from '../helpers/services.ts'
import { queryDatabase } from '../helpers/stores.ts'
import { tempDir } from '../helpers/tmp.ts'

const KEY = 'svcsk_load_test_bootstrap_key_0123456789abcdef'
const UNIQUE = 3000
const REPEATS = 300
const CONCURRENCY = 64

for (const kind of storeKinds()) {
  describe(`webhook load (${kind})`, () => {
    const dir = tempDir()
    let server: ServerProcess
    let env: Record<string, string>
    let drop: (() => Promise<void>) | undefined

    beforeAll(async () => {
      const pg = kind === 'postgres' ? await freshPostgresUrl() : null
      drop = pg?.drop
      env = { AUTOMATON_DATA_DIR: dir.path, AUTOMATON_DATABASE_URL: pg?.url ?? '', AUTOMATON_BOOTSTRAP_KEY: KEY }
      server = await startServer({ env })
    })
    afterAll(async () => {
      await server?.stop('SIGKILL')
      await drop?.()
      dir.remove()
    })

    it(`accepts ${UNIQUE} runs and ${REPEATS} repeats, and runs each exactly once`, async () => {
      const created = await api(server.url, 'POST', '/v1/workflows', KEY, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['a'] },
            a: { type: 'log', payload: { message: 'order {{$trigger.body.i}}' }, children: ['b'] },
            b: { type: 'set-variable', payload: { name: 'last', value: '{{$trigger.body.i}}' } },
          },
        },
      })
      const w = (await api(server.url, 'POST', `/v1/workflows/${created.body.data.id}/publish`, KEY)).body.data
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
            method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': `order-${i}` }, body: JSON.stringify({ i }),
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
      const stored = await queryDatabase<{ n: number; keys: number }>(env, 'SELECT COUNT(*) AS n, COUNT(DISTINCT idempotency_key) AS keys FROM runs WHERE workflow_id = $1', [w.id])
      expect(Number(stored[0].n)).toBe(UNIQUE)
      expect(Number(stored[0].keys)).toBe(UNIQUE)
      const ended = await queryDatabase<{ n: number }>(env, "SELECT COUNT(*) AS n FROM events WHERE workflow_id = $1 AND type = 'run.succeeded'", [w.id])
      expect(Number(ended[0].n)).toBe(UNIQUE)
    }, 120_000)
  })
}
