/**
 * Black box: a real server with a one-second schedule is killed with SIGKILL and restarted on
 * the same data, then two server processes run on that data at once. No tick ever has two
 * runs: the runs table holds one row per tick (idempotency key and scheduledFor both unique).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { api, type ServerProcess, startServer, until } from '../helpers/process.ts'
import { freshPostgresUrl, storeKinds } from '../helpers/services.ts'
import { queryDatabase } from '../helpers/stores.ts'
import { tempDir } from '../helpers/tmp.ts'

const KEY = 'svcsk_schedule_test_bootstrap_key_0123456789ab'

for (const kind of storeKinds()) {
  describe(`schedule ticks across kill -9 and two processes (${kind})`, () => {
    const dir = tempDir()
    const servers: ServerProcess[] = []
    let env: Record<string, string>
    let drop: (() => Promise<void>) | undefined

    beforeAll(async () => {
      const pg = kind === 'postgres' ? await freshPostgresUrl() : null
      drop = pg?.drop
      env = {
        AUTOMATON_DATA_DIR: dir.path,
        AUTOMATON_DATABASE_URL: pg?.url ?? '',
        AUTOMATON_BOOTSTRAP_KEY: KEY,
        AUTOMATON_MIN_SCHEDULE_INTERVAL_MS: '500',
        AUTOMATON_SQLITE_SYNCHRONOUS: 'normal',
      }
    })
    afterAll(async () => {
      for (const s of servers) await s.stop('SIGKILL')
      await drop?.()
      dir.remove()
    })

    const start = async () => {
      const server = await startServer({ env })
      servers.push(server)
      return server
    }

    it('never starts two runs for one tick', async () => {
      let server = await start()
      const created = await api(server.url, 'POST', '/v1/workflows', KEY, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'cronjob', payload: { expression: '* * * * * *' }, children: ['say'] },
            say: { type: 'log', payload: { message: '{{$trigger.body.scheduledFor}}' } },
          },
        },
      })
      expect(created.status).toBe(200)
      const id = created.body.data.id
      expect((await api(server.url, 'POST', `/v1/workflows/${id}/publish`, KEY)).status).toBe(200)
      const count = async (base: string) =>
        (await api(base, 'GET', `/v1/runs/status-counts?workflowId=${id}`, KEY)).body.data.total as number
      await until('two ticks', async () => (await count(server.url)) >= 2)

      await server.stop('SIGKILL')
      const [a, b] = await Promise.all([start(), start()])
      server = a
      const before = await count(server.url)
      await until('more ticks with two processes', async () => (await count(server.url)) >= before + 2)
      await Promise.all([a.stop('SIGKILL'), b.stop('SIGKILL')])

      const runs = await queryDatabase<{ idempotency_key: string; trigger_event: string; triggered_by: string }>(
        env,
        'SELECT idempotency_key, trigger_event, triggered_by FROM runs WHERE workflow_id = $1',
        [id],
      )
      expect(runs.length).toBeGreaterThanOrEqual(4)
      expect(runs.every((r) => r.triggered_by === 'schedule')).toBe(true)
      const ticks = runs.map((r) => JSON.parse(r.trigger_event).body.scheduledFor as string)
      expect(new Set(ticks).size).toBe(runs.length)
      expect(new Set(runs.map((r) => r.idempotency_key)).size).toBe(runs.length)
      expect(await queryDatabase(env, 'SELECT id FROM schedules WHERE workflow_id = $1', [id])).toHaveLength(1)
    }, 60_000)
  })
}
