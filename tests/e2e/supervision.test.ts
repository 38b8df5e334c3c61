/**
 * What runs Automaton under a supervisor: the systemd unit the docs ship is valid, and
 * `automaton healthcheck` (the container health check) says whether this host's process is alive
 * or ready by its exit code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BUN, ROOT, runCli, type ServerProcess, startServer } from '../helpers/process.ts'
import { warnSkipped } from '../helpers/services.ts'
import { tempDir } from '../helpers/tmp.ts'

const systemdAnalyze = Bun.which('systemd-analyze')
if (!systemdAnalyze) warnSkipped('the systemd unit check', 'systemd-analyze (not installed)')

describe('supervision', () => {
  const dir = tempDir()
  let server: ServerProcess
  beforeAll(async () => {
    server = await startServer({ env: { AUTOMATON_DATA_DIR: dir.path } })
  })
  afterAll(async () => {
    await server?.stop()
    dir.remove()
  })

  it('healthcheck exits 0 for a live and ready process, and 1 when nothing answers', async () => {
    const env = { AUTOMATON_DATA_DIR: dir.path, PORT: String(server.port) }
    const alive = await runCli(['healthcheck'], env)
    expect({ code: alive.code, out: alive.stdout.slice(0, 3) }).toEqual({ code: 0, out: '200' })
    const ready = await runCli(['healthcheck', '--ready'], env)
    expect({ code: ready.code, out: ready.stdout.slice(0, 3) }).toEqual({ code: 0, out: '200' })
    // A port nothing listens on: the process is not there.
    const gone = await runCli(['healthcheck', '--url', 'http://127.0.0.1:9/healthz'], env)
    expect(gone.code).toBe(1)
    expect(gone.stderr).toContain('did not answer')
  })

  it.skipIf(!systemdAnalyze)('the systemd unit of the docs verifies', async () => {
    // Verified with a binary that exists here in place of the installed one.
    const unit = readFileSync(join(ROOT, 'examples', 'deploy', 'automaton.service'), 'utf8').replaceAll(
      '/usr/local/bin/automaton',
      BUN,
    )
    const path = join(dir.path, 'automaton.service')
    writeFileSync(path, unit)
    const child = Bun.spawn([systemdAnalyze!, 'verify', path], { stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    expect({ code, out, err }).toEqual({ code: 0, out: '', err: '' })
  })
})
