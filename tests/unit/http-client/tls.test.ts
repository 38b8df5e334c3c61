import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'

describe('https through the connect-time check', () => {
  it('connects to the validated address but verifies the certificate against the host name', async () => {
    const fixtures = join(import.meta.dir, 'fixtures')
    const child = Bun.spawn([process.execPath, join(fixtures, 'tls-exchange.ts')], {
      env: { PATH: process.env.PATH ?? '', NODE_EXTRA_CA_CERTS: join(fixtures, 'receiver.cert.pem') },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const outcomes = JSON.parse(stdout)
    expect(outcomes['receiver.test']).toMatchObject({ status: 200, remoteAddress: '127.0.0.1' })
    expect(outcomes['receiver.test'].body).toStartWith('host receiver.test:')
    expect(outcomes['impostor.test']).toEqual({ error: 'ERR_TLS_CERT_ALTNAME_INVALID' })
  })
})
