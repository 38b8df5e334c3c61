/**
 * Scaled out: two server processes on one Postgres database share the outbox. Every delivery is
 * claimed by one worker at a time, so with no crash each event reaches the receiver exactly as
 * often as planned (a failed first attempt and one retry, which both processes race to take),
 * never twice at once; and both processes do part of the work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { generateMasterKey } from '../../core/security/secret-box.ts'
import { api, type ServerProcess, startServer, until } from '../helpers/process.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { freshPostgresUrl, TEST_DATABASE_URL, warnSkipped } from '../helpers/services.ts'
import { queryDatabase } from '../helpers/stores.ts'
import { tempDir } from '../helpers/tmp.ts'

const KEY = 'svcsk_hooks_two_workers_bootstrap_key_0123456789'
const RUNS_EACH = 40

if (!TEST_DATABASE_URL) warnSkipped('two delivery workers on one Postgres', 'AUTOMATON_TEST_DATABASE_URL')

describe.skipIf(!TEST_DATABASE_URL)('two delivery workers on one Postgres', () => {
  const dirs = [tempDir(), tempDir()]
  let receiver: Receiver
  let servers: ServerProcess[] = []
  let env: Record<string, string>
  let drop: (() => Promise<void>) | undefined
  /** Each attempt the receiver got: its answer, and whether another attempt of its event was still being answered. */
  const spans: Array<{ id: string; status: number; overlapped: boolean }> = []
  const answering = new Set<string>()

  beforeAll(async () => {
    receiver = startReceiver()
    const seen = new Set<string>()
    receiver.respond(async (req) => {
      const id = req.headers['webhook-id']
      const first = !seen.has(id)
      seen.add(id)
      const overlapped = answering.has(id)
      answering.add(id)
      await Bun.sleep(40)
      answering.delete(id)
      const status = first ? 500 : 200
      spans.push({ id, status, overlapped })
      return new Response(first ? 'not yet' : 'ok', { status })
    })
    const pg = await freshPostgresUrl()
    drop = pg.drop
    env = {
      AUTOMATON_DATABASE_URL: pg.url,
      AUTOMATON_MASTER_KEY: generateMasterKey(),
      AUTOMATON_BOOTSTRAP_KEY: KEY,
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      AUTOMATON_HOOK_CONCURRENCY: '8',
      AUTOMATON_HOOK_RETRY_SCHEDULE: '300ms',
      AUTOMATON_HOOK_POLL_MS: '50',
    }
    servers = await Promise.all(dirs.map((dir) => startServer({ env: { ...env, AUTOMATON_DATA_DIR: dir.path } })))
  }, 30_000)
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')))
    await receiver.stop()
    await drop?.()
    for (const dir of dirs) dir.remove()
  })

  it('sends each delivery attempt once, from one process or the other', async () => {
    const [a, b] = servers
    const hook = await api(a.url, 'POST', '/v1/execution-webhooks', KEY, {
      name: 'shared',
      url: `${receiver.url}/events`,
      maxRetries: 3,
    })
    expect(hook.status).toBe(200)
    const w = await api(a.url, 'POST', '/v1/workflows', KEY, {
      definition: {
        triggerNodeIds: ['root'],
        nodes: { root: { type: 'manual', children: ['a'] }, a: { type: 'log', payload: { message: 'hi' } } },
      },
    })
    const live = (await api(a.url, 'POST', `/v1/workflows/${w.body.data.id}/publish`, KEY)).body.data
    await Promise.all(
      [a, b].flatMap((server) =>
        Array.from({ length: RUNS_EACH }, (_, i) =>
          api(server.url, 'POST', `/v1/webhooks/${live.triggerSecret}`, undefined, { i }),
        ),
      ),
    )

    const total = RUNS_EACH * 2 * 5
    await until(
      'every delivery to succeed',
      async () => {
        const rows = await queryDatabase<{ n: number }>(
          env,
          "SELECT COUNT(*) AS n FROM hook_deliveries WHERE status = 'success'",
        )
        return Number(rows[0].n) === total
      },
      60_000,
    )

    const byId = new Map<string, typeof spans>()
    for (const s of spans) byId.set(s.id, [...(byId.get(s.id) ?? []), s])
    expect(byId.size).toBe(total)
    for (const attempts of byId.values()) {
      expect(attempts.map((s) => s.status)).toEqual([500, 200])
      expect(attempts.map((s) => s.overlapped)).toEqual([false, false])
    }
    const rows = await queryDatabase<{ attempts: string; retry_count: number }>(
      env,
      'SELECT attempts, retry_count FROM hook_deliveries',
    )
    expect(rows.every((r) => Number(r.retry_count) === 1)).toBe(true)
    const workers = new Set(rows.flatMap((r) => (JSON.parse(r.attempts) as Array<{ by: string }>).map((x) => x.by)))
    // Both processes sent attempts. (Whether a retry is taken by the other process than the
    // first attempt's is up to timing — each process wakes for its own due retries — so it is not
    // asserted: the guarantee is that every attempt above happened once, from one of them.)
    expect(workers.size).toBe(2)
  }, 90_000)
})
