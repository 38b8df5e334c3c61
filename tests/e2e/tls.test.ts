/**
 * HTTPS served from certificate files, and a certificate swapped by SIGHUP without a restart,
 * as a client sees it: a real server process, certificates made by openssl here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeCertificate, servedName } from '../helpers/certificates.ts'
import { DENO, ROOT, startServer, type ServerProcess } from '../helpers/process.ts'
import { TEST_DATABASE_URL, freshPostgresUrl, warnSkipped } from '../helpers/services.ts'
import { tempDir } from '../helpers/tmp.ts'

/** A request that trusts only `caFile`: it succeeds only if the server shows that certificate. */
async function getTrusting(port: number, caFile: string, path = '/healthz') {
  const response = await fetch(`https://localhost:${port}${path}`, {
    tls: { ca: readFileSync(caFile, 'utf8') },
    keepalive: false,
  } as RequestInit)
  return { status: response.status, body: await response.json() }
}

async function until(condition: () => boolean, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}

function tlsSuite(runtime: 'bun' | 'deno') {
  const dir = tempDir()
  let server: ServerProcess
  let first: { cert: string; key: string }
  let second: { cert: string; key: string }
  const served = { cert: join(dir.path, 'served.crt'), key: join(dir.path, 'served.key') }
  let drop: (() => Promise<void>) | undefined

  beforeAll(async () => {
    first = await makeCertificate(dir.path, 'first')
    second = await makeCertificate(dir.path, 'second')
    copyFileSync(first.cert, served.cert)
    copyFileSync(first.key, served.key)
    const env: Record<string, string> = {
      AUTOMATON_DATA_DIR: join(dir.path, 'data'),
      AUTOMATON_TLS_CERT_FILE: served.cert,
      AUTOMATON_TLS_KEY_FILE: served.key,
    }
    let cmd: string[] | undefined
    if (runtime === 'deno') {
      const pg = await freshPostgresUrl()
      drop = pg.drop
      env.AUTOMATON_DATABASE_URL = pg.url
      cmd = [
        DENO,
        'run',
        '--allow-all',
        '--unstable-net',
        '--no-check',
        '--node-modules-dir=manual',
        join(ROOT, 'main.ts'),
        'serve',
      ]
    }
    server = await startServer({ env, cmd, timeoutMs: runtime === 'deno' ? 90_000 : 20_000 })
  }, 120_000)
  afterAll(async () => {
    await server?.stop('SIGTERM')
    await drop?.()
    dir.remove()
  })

  it('answers HTTPS with the certificate of the files', async () => {
    expect(server.logs()).toContain('"scheme":"https"')
    expect(await servedName(server.port)).toBe('first')
    expect(await getTrusting(server.port, first.cert)).toEqual({
      status: 200,
      body: expect.objectContaining({ status: 'ok' }),
    })
    await expect(getTrusting(server.port, second.cert)).rejects.toThrow()
  })

  it('serves a new certificate after SIGHUP without a restart, and keeps the old one when the new files are broken', async () => {
    copyFileSync(second.cert, served.cert)
    copyFileSync(second.key, served.key)
    process.kill(server.pid, 'SIGHUP')
    await until(() => server.logs().includes('reloaded the TLS certificate'), 'the reload')
    expect(await getTrusting(server.port, second.cert)).toEqual({
      status: 200,
      body: expect.objectContaining({ status: 'ok' }),
    })
    expect(await servedName(server.port)).toBe('second')
    await expect(getTrusting(server.port, first.cert)).rejects.toThrow()

    writeFileSync(served.cert, 'not a certificate')
    process.kill(server.pid, 'SIGHUP')
    await until(() => server.logs().includes('could not reload the TLS certificate'), 'the refusal')
    expect(await servedName(server.port)).toBe('second')
    expect((await getTrusting(server.port, second.cert)).status).toBe(200)
  })
}

describe('HTTPS on Bun', () => tlsSuite('bun'))
// On Deno the only store is Postgres: without one the suite cannot run, and says so.
if (TEST_DATABASE_URL) describe('HTTPS on Deno (Postgres)', () => tlsSuite('deno'))
else warnSkipped('HTTPS on Deno (it runs on Postgres)', 'AUTOMATON_TEST_DATABASE_URL')
