/**
 * The same app boots on Deno (`npm run start:deno`) with the Postgres store: a smoke test of
 * the runtime-neutral core.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { api, DENO, ROOT, runCli, startServer } from '../helpers/process.ts'
import { freshPostgresUrl, TEST_DATABASE_URL, warnSkipped } from '../helpers/services.ts'
import { tempDir } from '../helpers/tmp.ts'

const DENO_CMD = [DENO, 'run', '--allow-all', '--no-check', '--node-modules-dir=manual', join(ROOT, 'main.ts')]

if (!TEST_DATABASE_URL) warnSkipped('the Deno smoke test (it runs on Postgres)', 'AUTOMATON_TEST_DATABASE_URL')

describe.skipIf(!TEST_DATABASE_URL)('on Deno, with Postgres', () => {
  const dir = tempDir()
  let drop: (() => Promise<void>) | undefined
  afterAll(async () => {
    await drop?.()
    dir.remove()
  })

  it('serves the API and runs the CLI', async () => {
    const pg = await freshPostgresUrl()
    drop = pg.drop
    const key = 'svcsk_deno_smoke_bootstrap_0123456789abcdef'
    const env = { AUTOMATON_DATA_DIR: dir.path, AUTOMATON_DATABASE_URL: pg.url, AUTOMATON_BOOTSTRAP_KEY: key }
    const server = await startServer({ env, cmd: [...DENO_CMD, 'serve'], timeoutMs: 90_000 })
    try {
      expect(server.logs()).toContain('"runtime":"deno"')
      expect((await api(server.url, 'GET', '/readyz')).body).toMatchObject({
        status: 'ready',
        checks: { store: 'ok', bus: 'ok' },
        backlog: { total: 0, max: 100000 },
      })
      const sa = await api(server.url, 'POST', '/v1/service-accounts', key, {
        name: 'from-deno',
        permissions: ['run:read'],
      })
      expect(sa.status).toBe(200)
      const minted = await api(server.url, 'POST', '/v1/api-keys', key, {
        name: 'k',
        serviceAccountId: sa.body.data.id,
      })
      const me = await api(server.url, 'GET', '/v1/me', minted.body.data.key)
      expect(me.body.data.permissions).toEqual(['run:read'])
      const invalid = await api(server.url, 'POST', '/v1/api-keys', key, { name: 42 })
      expect(invalid.status).toBe(400)
      const org = await runCli(['orgs', 'create', 'deno-org'], env, DENO_CMD)
      expect(org.code).toBe(0)
      expect(JSON.parse(org.stdout).name).toBe('deno-org')
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0)
    }
  }, 120_000)
})
