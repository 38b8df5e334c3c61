/** `npm run build` makes the single binary; it boots and answers with the same commands. */
import { afterAll, describe, expect, it } from 'bun:test'
import { readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { anvilBinary } from '../../adapters/evm/devnet.ts'
import { api, BUN, ROOT, runCli, startServer } from '../helpers/process.ts'
import { tempDir } from '../helpers/tmp.ts'

describe('the single binary', () => {
  const dir = tempDir()
  const out = tempDir()
  afterAll(() => {
    dir.remove()
    out.remove()
  })
  // Built by the build script into a folder of its own: a stale dist/automaton can never stand in
  // for a build that failed, and the repository is left alone.
  const binary = join(out.path, 'automaton')

  it('builds with the build script', async () => {
    const script = (JSON.parse(await Bun.file(join(ROOT, 'package.json')).text()) as { scripts: { build: string } })
      .scripts.build
    expect(script).toContain('--outfile dist/automaton')
    // Every step of the script (the console's build, then the compile) with this Bun.
    const command = script
      .replace('--outfile dist/automaton', `--outfile ${binary}`)
      .replace(/(^|&&\s*)bun /g, (_, before: string) => `${before}"${BUN}" `)
    const build = Bun.spawn(['sh', '-c', command], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
    const code = await build.exited
    expect({ code, stderr: code === 0 ? '' : await new Response(build.stderr).text() }).toEqual({ code: 0, stderr: '' })
    expect(await Bun.file(binary).exists()).toBe(true)
  }, 120_000)

  it('serves, and runs the CLI commands on the same data', async () => {
    const env = { AUTOMATON_DATA_DIR: dir.path, AUTOMATON_BOOTSTRAP_KEY: 'svcsk_binary_bootstrap_0123456789abcdef' }
    const server = await startServer({ env, cmd: [binary, 'serve'] })
    try {
      expect((await api(server.url, 'GET', '/healthz')).body.status).toBe('ok')
      // The web console is inside the binary: its page and its script.
      const page = await fetch(`${server.url}/runs?status=failure`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('/console/app.js')
      const script = await fetch(`${server.url}/console/app.js`)
      expect(script.status).toBe(200)
      expect(script.headers.get('content-type')).toContain('javascript')
      expect((await script.text()).length).toBeGreaterThan(10_000)
      const org = await runCli(['orgs', 'create', 'from-binary'], env, [binary])
      expect(org.code).toBe(0)
      const key = await runCli(['keys', 'create', '--org', 'from-binary', '--name', 'k'], env, [binary])
      const raw = JSON.parse(key.stdout).key
      const me = await api(server.url, 'GET', '/v1/me', raw)
      expect(me.status).toBe(200)
      expect(me.body.data.organizationId).toBe(JSON.parse(org.stdout).id)
      // The time-based triggers' libraries (rrule, effect's Cron) and Intl time zones are in the binary.
      const definition = {
        triggerNodeIds: ['cron', 'rule'],
        nodes: {
          cron: { type: 'cronjob', payload: { expression: '0 9 * * 1-5', timezone: 'Europe/Berlin' } },
          rule: {
            type: 'schedule',
            payload: { rrule: 'DTSTART;TZID=Europe/Berlin:20260101T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO,WE' },
          },
        },
      }
      const created = await api(server.url, 'POST', '/v1/workflows', raw, { definition })
      expect(created.status).toBe(200)
      expect((await api(server.url, 'POST', `/v1/workflows/${created.body.data.id}/publish`, raw)).status).toBe(200)
      const schedule = (await api(server.url, 'GET', `/v1/workflows/${created.body.data.id}/schedule`, raw)).body.data
      expect(schedule.active).toBe(true)
      expect(schedule.triggers.map((t: { upcoming: string[] }) => t.upcoming.length)).toEqual([5, 5])
      const version = await runCli(['version'], env, [binary])
      expect(JSON.parse(version.stdout).version).toMatch(/^\d+\.\d+\.\d+/)
      // The store's checkpoint thread is an entrypoint of the binary too (it says so when it cannot start).
      expect(server.logs()).not.toContain('checkpoint thread')
      // It executed itself again with the engine's memory hint (a compiled binary's arguments differ from bun's).
      expect(readFileSync(`/proc/${server.pid}/environ`, 'utf8').split('\0')).toContain(
        `BUN_JSC_forceRAMSize=${512 * 2 ** 20}`,
      )
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0)
    }
  }, 60_000)

  it('loads external plugins (TypeScript included) from AUTOMATON_PLUGINS_DIR at run time', async () => {
    const key = 'svcsk_binary_plugins_0123456789abcdef'
    const env = {
      AUTOMATON_DATA_DIR: dir.path,
      AUTOMATON_BOOTSTRAP_KEY: key,
      AUTOMATON_PLUGINS_DIR: join(ROOT, 'examples', 'weather'),
    }
    const server = await startServer({ env, cmd: [binary, 'serve'] })
    try {
      const action = await api(server.url, 'GET', '/v1/actions/weather-current', key)
      expect(action.status).toBe(200)
      expect(action.body.data.plugin).toBe('weather')
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0)
    }
  }, 60_000)

  it('says in one line how to get anvil when devnet finds none', async () => {
    // Away from the checkout, whose node_modules has anvil's npm package.
    const child = Bun.spawn([binary, 'devnet', '--port', '18545'], {
      cwd: dir.path,
      env: { PATH: '/nonexistent', HOME: process.env.HOME ?? '/tmp' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' })
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toContain('AUTOMATON_ANVIL_PATH')
  })

  it('runs devnet with the anvil beside it, printing the chain as JSON', async () => {
    symlinkSync(anvilBinary(), join(out.path, 'anvil'))
    const port = 20_000 + Math.floor(Math.random() * 20_000)
    const child = Bun.spawn([binary, 'devnet', '--port', String(port)], {
      cwd: dir.path,
      env: { PATH: '/nonexistent', HOME: process.env.HOME ?? '/tmp' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    try {
      const reader = child.stdout.getReader()
      let text = ''
      while (!text.includes('\n')) {
        const { value, done } = await reader.read()
        if (done) throw new Error(`devnet exited: ${await new Response(child.stderr).text()}`)
        text += new TextDecoder().decode(value)
      }
      const described = JSON.parse(text)
      expect(described.rpcUrl).toBe(`http://127.0.0.1:${port}`)
      expect(described.accounts.length).toBeGreaterThan(0)
      const chainId = await fetch(described.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      }).then((r) => r.json())
      expect(Number(chainId.result)).toBe(described.chainId)
    } finally {
      child.kill('SIGTERM')
      expect(await child.exited).toBe(0)
    }
  }, 60_000)
})
