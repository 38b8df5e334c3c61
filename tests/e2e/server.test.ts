/**
 * Black-box: the real server process, driven over HTTP with fetch, on both stores; the CLI
 * beside it on the same data; bootstrap across restarts; graceful stop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { api, runCli, type ServerProcess, startServer } from '../helpers/process.ts'
import { freshPostgresUrl, storeKinds } from '../helpers/services.ts'
import { tempDir } from '../helpers/tmp.ts'

const BOOTSTRAP = 'svcsk_e2e_bootstrap_key_0123456789abcdefghij'

for (const kind of storeKinds()) {
  describe(`the server process (${kind})`, () => {
    const dir = tempDir()
    let pg: Awaited<ReturnType<typeof freshPostgresUrl>> | null = null
    let env: Record<string, string>
    let server: ServerProcess

    beforeAll(async () => {
      pg = kind === 'postgres' ? await freshPostgresUrl() : null
      env = {
        AUTOMATON_DATA_DIR: dir.path,
        AUTOMATON_DATABASE_URL: pg?.url ?? '',
        AUTOMATON_BOOTSTRAP_KEY: BOOTSTRAP,
        AUTOMATON_SQLITE_SYNCHRONOUS: 'normal',
      }
      server = await startServer({ env })
    })
    afterAll(async () => {
      await server?.stop('SIGKILL')
      await pg?.drop()
      dir.remove()
    })

    it('serves health, readiness and the bootstrap key', async () => {
      expect((await api(server.url, 'GET', '/healthz')).status).toBe(200)
      expect((await api(server.url, 'GET', '/readyz')).body.status).toBe('ready')
      const me = await api(server.url, 'GET', '/v1/me', BOOTSTRAP)
      expect(me.status).toBe(200)
      expect(me.body.data.permissions).toContain('apikey:create')
    })

    it('lets the CLI create an organization and a key while the server runs', async () => {
      const org = await runCli(['orgs', 'create', `cli-org-${kind}`], env)
      expect(org.code).toBe(0)
      const orgJson = JSON.parse(org.stdout)
      expect(orgJson).toMatchObject({ name: `cli-org-${kind}` })
      expect(orgJson.id).toMatch(/^org_/)
      const key = await runCli(['keys', 'create', '--org', `cli-org-${kind}`, '--name', 'ops', '--scope', 'read'], env)
      expect(key.code).toBe(0)
      const lines = key.stdout.trim().split('\n')
      expect(lines).toHaveLength(1)
      const keyJson = JSON.parse(lines[0])
      expect(keyJson).toMatchObject({ organizationId: orgJson.id, name: 'ops', scope: 'read' })
      expect(keyJson.key).toMatch(/^svcsk_/)
      const me = await api(server.url, 'GET', '/v1/me', keyJson.key)
      expect(me.status).toBe(200)
      expect(me.body.data.organizationId).toBe(orgJson.id)
      const byId = await runCli(['keys', 'create', '--org', orgJson.id, '--name', 'by-id'], env)
      expect(JSON.parse(byId.stdout).organizationId).toBe(orgJson.id)
    })

    it('explains CLI mistakes with a usage error and exit code 2', async () => {
      const missing = await runCli(['keys', 'create', '--name', 'x'], env)
      expect(missing.code).toBe(2)
      expect(missing.stderr).toContain('--org')
      const unknownOrg = await runCli(['keys', 'create', '--org', 'no-such-org', '--name', 'x'], env)
      expect(unknownOrg.code).toBe(1)
      expect(unknownOrg.stderr).toContain('not found')
      const duplicate = await runCli(['orgs', 'create', `cli-org-${kind}`], env)
      expect(duplicate.code).toBe(1)
      expect(duplicate.stderr).toContain('already exists')
    })

    it('keeps everything across a restart, and the bootstrap stays idempotent', async () => {
      const created = await api(server.url, 'POST', '/v1/service-accounts', BOOTSTRAP, {
        name: 'persisted',
        permissions: ['run:read'],
      })
      expect(created.status).toBe(200)
      expect(await server.stop('SIGTERM')).toBe(0)
      expect(server.logs()).toContain('automaton stopped')
      server = await startServer({ env })
      const got = await api(server.url, 'GET', `/v1/service-accounts/${created.body.data.id}`, BOOTSTRAP)
      expect(got.body.data.name).toBe('persisted')
      const orgs = JSON.parse((await runCli(['orgs', 'list'], env)).stdout).items
      expect(orgs.filter((o: { name: string }) => o.name === 'default')).toHaveLength(1)
      const keys = await api(server.url, 'GET', '/v1/api-keys?limit=100', BOOTSTRAP)
      expect(keys.body.data.items.filter((k: { name: string }) => k.name === 'bootstrap')).toHaveLength(1)
    })

    it("sizes the JavaScript engine's garbage collection by AUTOMATON_GC_MEMORY_MB, in the same process", async () => {
      // The process the test started (its pid) is the one serving, with the engine's variable set.
      const environ = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
      expect(environ(server.pid)).toContain(`BUN_JSC_forceRAMSize=${512 * 2 ** 20}`)
      const small = await startServer({ env: { ...env, AUTOMATON_GC_MEMORY_MB: '64' } })
      const off = await startServer({ env: { ...env, AUTOMATON_GC_MEMORY_MB: '0' } })
      try {
        expect(environ(small.pid)).toContain(`BUN_JSC_forceRAMSize=${64 * 2 ** 20}`)
        expect((await api(small.url, 'GET', '/v1/me', BOOTSTRAP)).status).toBe(200)
        expect(environ(off.pid).some((v) => v.startsWith('BUN_JSC_forceRAMSize='))).toBe(false)
        expect((await api(off.url, 'GET', '/v1/me', BOOTSTRAP)).status).toBe(200)
      } finally {
        await small.stop()
        await off.stop()
      }
      const bad = await runCli(['serve'], { ...env, AUTOMATON_GC_MEMORY_MB: 'lots' })
      expect(bad.code).toBe(1)
      expect(bad.stderr).toContain('AUTOMATON_GC_MEMORY_MB')
    })

    it('refuses to start with a malformed bootstrap key, saying why', async () => {
      const bad = await runCli(['migrate'], { ...env, AUTOMATON_BOOTSTRAP_KEY: 'not-a-key' })
      expect(bad.code).toBe(1)
      expect(bad.stderr).toContain('AUTOMATON_BOOTSTRAP_KEY')
      const badPort = await runCli(['serve'], { ...env, PORT: 'eighty' })
      expect(badPort.code).toBe(1)
      expect(badPort.stderr).toContain('PORT must be an integer')
    })
  })
}
