/**
 * The client address behind a reverse proxy: X-Forwarded-For and X-Forwarded-Proto count only
 * when the peer is a trusted proxy, and then the right-most untrusted hop is the client. Public
 * run limits and a key's lastUsedIp both see that one address; a forged header from anyone
 * else changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createProxyTrust } from '../../core/http/client-address.ts'
import { clientUrlOf, setClientAddress, setClientView } from '../../core/http/request-state.ts'
import { createSkewedClock } from '../helpers/clock.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear } from '../helpers/workflows.ts'

describe('the client address', () => {
  const trust = createProxyTrust(['10.0.0.0/8', '2001:db8::/32'])
  const view = (peer: string | null, headers: Record<string, string> = {}) => trust(peer, new Headers(headers))

  it('is the peer when the peer is not a trusted proxy, whatever the headers say', () => {
    expect(view('203.0.113.7', { 'x-forwarded-for': '198.51.100.1', 'x-forwarded-proto': 'https' })).toEqual({
      address: '203.0.113.7',
      scheme: null,
    })
    expect(createProxyTrust([])('10.0.0.5', new Headers({ 'x-forwarded-for': '198.51.100.1' }))).toEqual({
      address: '10.0.0.5',
      scheme: null,
    })
  })

  it('is the right-most hop that is not a trusted proxy', () => {
    expect(view('10.0.0.5', { 'x-forwarded-for': '198.51.100.9' }).address).toBe('198.51.100.9')
    // The client wrote 6.6.6.6 itself; the proxy appended the address it saw.
    expect(view('10.0.0.5', { 'x-forwarded-for': '6.6.6.6, 198.51.100.20, 10.1.2.3' }).address).toBe('198.51.100.20')
    expect(view('2001:db8::1', { 'x-forwarded-for': '[2001:db8::2]:443, 198.51.100.4:5100' }).address).toBe(
      '198.51.100.4',
    )
    expect(view('10.0.0.5', { 'x-forwarded-for': '10.0.0.9' }).address).toBe('10.0.0.9')
    expect(view('10.0.0.5').address).toBe('10.0.0.5')
    // An unreadable hop ends the walk at the last address a trusted proxy vouched for.
    expect(view('10.0.0.5', { 'x-forwarded-for': '198.51.100.1, unknown, 10.0.0.7' }).address).toBe('10.0.0.7')
  })

  it('takes the scheme from a trusted proxy only', () => {
    expect(view('10.0.0.5', { 'x-forwarded-proto': 'HTTPS' }).scheme).toBe('https')
    expect(view('10.0.0.5', { 'x-forwarded-proto': 'gopher' }).scheme).toBe(null)
    expect(view('198.51.100.1', { 'x-forwarded-proto': 'https' }).scheme).toBe(null)
    const request = new Request('http://automaton.example/v1/webhooks/x?a=1')
    setClientView(request, view('10.0.0.5', { 'x-forwarded-proto': 'https' }))
    expect(clientUrlOf(request)).toBe('https://automaton.example/v1/webhooks/x?a=1')
  })
})

describe('public run limits and lastUsedIp behind a proxy', () => {
  let t: TestSystem
  const clock = createSkewedClock()
  let publicId: string
  beforeAll(async () => {
    t = await openTestSystem('sqlite', { AUTOMATON_TRUSTED_PROXIES: '10.0.0.0/8' }, { clock })
    const w = await createLive(t, {
      name: 'public',
      visibility: 'public_execute',
      publicRunDailyLimit: 1,
      definition: linear({ say: { type: 'log', payload: { message: 'hi' } } }, ['say']),
    })
    publicId = w.id
  })
  afterAll(() => t.close())

  const send = async (
    path: string,
    peer: string,
    headers: Record<string, string>,
    init: { method?: string; key?: string; body?: unknown } = {},
  ) => {
    const request = new Request(`http://localhost${path}`, {
      method: init.method ?? 'POST',
      headers: {
        'content-type': 'application/json',
        ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
        ...headers,
      },
      body: init.method === 'GET' ? undefined : JSON.stringify(init.body ?? {}),
    })
    setClientAddress(request, peer)
    return t.system.app.handle(request)
  }
  const runPublic = (peer: string, forwardedFor?: string) =>
    send(`/v1/public/workflows/${publicId}/run`, peer, forwardedFor ? { 'x-forwarded-for': forwardedFor } : {})

  it('does not let an untrusted caller escape its limit by forging X-Forwarded-For', async () => {
    expect((await runPublic('203.0.113.7', '198.51.100.1')).status).toBe(200)
    const second = await runPublic('203.0.113.7', '198.51.100.2')
    expect(second.status).toBe(429)
    expect(second.headers.get('retry-after')).toBeTruthy()
    expect((await runPublic('203.0.113.7')).status).toBe(429)
  })

  it('limits each client a trusted proxy forwards on its own', async () => {
    expect((await runPublic('10.0.0.5', '198.51.100.30')).status).toBe(200)
    expect((await runPublic('10.0.0.5', '198.51.100.31')).status).toBe(200)
    expect((await runPublic('10.0.0.6', '6.6.6.6, 198.51.100.30')).status).toBe(429)
  })

  it("records the same client address as the key's lastUsedIp", async () => {
    const lastUsedIp = async () => {
      await t.system.auth.flush()
      const keys = (await t.call('GET', '/v1/api-keys')).body.data
      return (keys.items ?? keys).find((k: { lastUsedIp: string | null }) => k.lastUsedIp !== null)?.lastUsedIp
    }
    expect(
      (
        await send(
          '/v1/workflows',
          '203.0.113.8',
          { 'x-forwarded-for': '198.51.100.77' },
          { method: 'GET', key: t.key },
        )
      ).status,
    ).toBe(200)
    expect(await lastUsedIp()).toBe('203.0.113.8')
    // A key's last use is kept only when it is later than the one stored: the clock moves on.
    clock.skip(1)
    expect(
      (await send('/v1/workflows', '10.0.0.5', { 'x-forwarded-for': '198.51.100.78' }, { method: 'GET', key: t.key }))
        .status,
    ).toBe(200)
    expect(await lastUsedIp()).toBe('198.51.100.78')
  })
})
