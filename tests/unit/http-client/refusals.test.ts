import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createGuardedHttpClient } from '../../../adapters/http/guarded-client.ts'
import { ConfigError } from '../../../core/config.ts'
import { type TargetRefusal, TargetRefusedError } from '../../../core/ports/http-client.ts'
import { type Receiver, startReceiver } from './receiver.ts'

let receiver: Receiver
beforeAll(() => {
  receiver = startReceiver()
})
afterAll(() => receiver.stop())

/** A resolver that answers `addresses` and counts its calls; never the system's DNS. */
function fakeDns(addresses: string[]) {
  const calls: string[] = []
  return {
    calls,
    resolve: async (host: string) => {
      calls.push(host)
      return addresses
    },
  }
}

async function refusal(promise: Promise<unknown>): Promise<TargetRefusedError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(TargetRefusedError)
  return error as TargetRefusedError
}

describe('refusing targets without an allow-list', () => {
  const port = () => receiver.port
  const cases: [string, () => string, TargetRefusal, string?][] = [
    ['loopback', () => `http://127.0.0.1:${port()}/echo`, 'forbidden-address', 'loopback'],
    ['a private address', () => 'http://10.0.0.1/', 'forbidden-address', 'private'],
    [
      'the cloud metadata address',
      () => 'http://169.254.169.254/latest/meta-data',
      'forbidden-address',
      'cloud-metadata',
    ],
    ['IPv6 loopback', () => `http://[::1]:${port()}/echo`, 'forbidden-address', 'loopback'],
    ['localhost', () => `http://localhost:${port()}/echo`, 'forbidden-hostname'],
    ['IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${port()}/echo`, 'forbidden-address', 'loopback'],
    ['the unspecified address', () => `http://0.0.0.0:${port()}/echo`, 'forbidden-address', 'unspecified'],
    ['loopback in hex notation', () => `http://0x7f.1:${port()}/echo`, 'forbidden-address', 'loopback'],
    ['loopback as one number', () => `http://2130706433:${port()}/echo`, 'forbidden-address', 'loopback'],
    ['the metadata host name', () => 'http://metadata.google.internal/computeMetadata/v1/', 'forbidden-hostname'],
    ['an ftp URL', () => 'ftp://example.com/file', 'scheme'],
    ['a file URL', () => 'file:///etc/passwd', 'scheme'],
    ['credentials in the URL', () => 'http://user:pw@example.com/', 'credentials'],
    ['a malformed URL', () => 'http//nope', 'invalid-url'],
  ]

  for (const [what, url, reason, range] of cases) {
    it(`refuses ${what} in checkTarget and send, without resolving or connecting`, async () => {
      const dns = fakeDns(['127.0.0.1'])
      const client = createGuardedHttpClient({ resolve: dns.resolve })
      const checked = await refusal(client.checkTarget(url()))
      const sent = await refusal(client.send({ method: 'GET', url: url() }))
      for (const error of [checked, sent]) {
        expect(error.reason).toBe(reason)
        if (range) expect(error.range).toBe(range)
      }
      expect(dns.calls).toEqual([])
      expect(receiver.received).toHaveLength(0)
    })
  }

  it('names the address it refused', async () => {
    const error = await refusal(createGuardedHttpClient().checkTarget('http://169.254.169.254/'))
    expect(error.address).toBe('169.254.169.254')
    expect(error.message).toContain('cloud-metadata')
  })

  it('refuses a name that resolves to a private address, before connecting', async () => {
    const dns = fakeDns(['127.0.0.1'])
    const client = createGuardedHttpClient({ resolve: dns.resolve })
    const error = await refusal(client.send({ method: 'GET', url: `http://innocent.example:${receiver.port}/echo` }))
    expect(error).toMatchObject({ reason: 'forbidden-address', address: '127.0.0.1', range: 'loopback' })
    expect(dns.calls).toEqual(['innocent.example'])
    expect(receiver.received).toHaveLength(0)
  })

  it('refuses a name when any one of its addresses is forbidden', async () => {
    const client = createGuardedHttpClient({ resolve: fakeDns(['93.184.215.14', '::ffff:a00:1']).resolve })
    const error = await refusal(client.checkTarget('https://mixed.example/'))
    expect(error).toMatchObject({ address: '::ffff:a00:1', range: 'private' })
  })

  it('passes a name whose addresses are all public (checked only, never sent)', async () => {
    const client = createGuardedHttpClient({ resolve: fakeDns(['93.184.215.14', '2606:4700::1111']).resolve })
    await client.checkTarget('https://hooks.example.com/path')
  })

  it('lets the resolver error through when a name does not resolve', async () => {
    const client = createGuardedHttpClient({
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })
      },
    })
    const error = await client.checkTarget('https://nowhere.example/').catch((e: unknown) => e)
    expect(error).not.toBeInstanceOf(TargetRefusedError)
    expect(error).toMatchObject({ code: 'ENOTFOUND' })
  })
})

describe('the allow-list', () => {
  it('lets addresses inside an allowed CIDR through and keeps the rest forbidden', async () => {
    const client = createGuardedHttpClient({ allow: ['10.0.0.0/8', '::1/128'] })
    await client.checkTarget('http://10.1.2.3:8080/')
    await client.checkTarget('http://[::1]/')
    await refusal(client.checkTarget('http://127.0.0.1/'))
    await refusal(client.checkTarget('http://192.168.0.1/'))
  })

  it('allows a forbidden name only by name, not through the CIDR of its address', async () => {
    const resolve = fakeDns(['127.0.0.1']).resolve
    const byCidr = createGuardedHttpClient({ allow: ['127.0.0.1/32'], resolve })
    expect((await refusal(byCidr.checkTarget('http://localhost/'))).reason).toBe('forbidden-hostname')
    const byName = createGuardedHttpClient({ allow: ['localhost'], resolve })
    await byName.checkTarget('http://localhost/')
    await byName.checkTarget('http://LOCALHOST./')
  })

  it('refuses an entry that is neither a CIDR nor a host name', () => {
    expect(() => createGuardedHttpClient({ allow: ['10.0.0.0/33'] })).toThrow(ConfigError)
    expect(() => createGuardedHttpClient({ allow: ['http://x'] })).toThrow(ConfigError)
  })
})
