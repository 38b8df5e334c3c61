/**
 * The embedded store on Deno (node:sqlite): the store contract passes there, `serve` starts with
 * no database server, and Bun and Deno read and write the same SQLite file.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { api, DENO, ROOT, runCli, startServer } from '../helpers/process.ts'
import { tempDir } from '../helpers/tmp.ts'

const DENO_RUN = [DENO, 'run', '--allow-all', '--no-check', '--node-modules-dir=manual']
const DENO_CMD = [...DENO_RUN, join(ROOT, 'main.ts')]

describe('the embedded store on Deno', () => {
  const dir = tempDir()
  afterAll(() => dir.remove())

  it('passes the store contract through node:sqlite', async () => {
    const child = Bun.spawn(
      [
        ...DENO_RUN,
        `--import-map=${join(ROOT, 'tests', 'contract', 'deno-import-map.json')}`,
        join(ROOT, 'tests', 'contract', 'store-deno.ts'),
      ],
      { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' },
    )
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    expect({ code, failures: stdout.split('\n').filter((line) => line.startsWith('(fail)')), stderr }).toEqual({
      code: 0,
      failures: [],
      stderr: '',
    })
    expect(stdout).toMatch(/\n[1-9]\d* passed, 0 failed\n/)
  }, 120_000)

  it('serves with no database server, on a file Bun opens too', async () => {
    const key = 'svcsk_deno_embedded_bootstrap_0123456789abcdef'
    const env = { AUTOMATON_DATA_DIR: dir.path, AUTOMATON_BOOTSTRAP_KEY: key }
    const server = await startServer({ env, cmd: [...DENO_CMD, 'serve'], timeoutMs: 90_000 })
    try {
      expect(server.logs()).toContain('"runtime":"deno"')
      expect(server.logs()).toContain('"store":"sqlite"')
      expect((await api(server.url, 'GET', '/readyz')).body).toMatchObject({ status: 'ready', checks: { store: 'ok' } })
      const me = await api(server.url, 'GET', '/v1/me', key)
      expect(me.status).toBe(200)
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0)
    }
    const fromDeno = await runCli(['orgs', 'create', 'made-on-deno'], env, DENO_CMD)
    expect(fromDeno.code).toBe(0)
    const listed = await runCli(['orgs', 'list'], env)
    expect(JSON.parse(listed.stdout).items.map((o: { name: string }) => o.name)).toContain('made-on-deno')
  }, 120_000)
})
