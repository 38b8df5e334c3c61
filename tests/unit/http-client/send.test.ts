import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createGuardedHttpClient } from '../../../adapters/http/guarded-client.ts'
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_OUTBOUND_TIMEOUT_MS,
  OutboundTimeoutError,
} from '../../../core/ports/http-client.ts'
import { type Receiver, startReceiver } from './receiver.ts'
import { eventually } from '../../helpers/eventually.ts'

let receiver: Receiver
beforeAll(() => {
  receiver = startReceiver()
})
afterAll(() => receiver.stop())

const client = createGuardedHttpClient({ allow: ['127.0.0.1/32'] })
const lastReceived = () => receiver.received.at(-1)!

describe('sending to an allow-listed local receiver', () => {
  it('returns the status, lower-cased headers, the body and the address it connected to', async () => {
    const response = await client.send({ method: 'GET', url: `${receiver.origin}/echo?x=1` })
    expect(response.status).toBe(201)
    expect(response.headers['x-receiver']).toBe('Yes')
    expect(response.headers['content-type']).toStartWith('application/json')
    expect(Object.keys(response.headers).every((name) => name === name.toLowerCase())).toBe(true)
    expect(JSON.parse(response.body)).toMatchObject({ method: 'GET', path: '/echo?x=1' })
    expect(response.truncated).toBe(false)
    expect(response.remoteAddress).toBe('127.0.0.1')
    expect(response.durationMs).toBeGreaterThanOrEqual(0)
  })

  it('delivers a POST body and custom headers, and names the URL host in Host', async () => {
    await client.send({
      method: 'POST',
      url: `${receiver.origin}/echo`,
      headers: { 'Content-Type': 'application/json', 'X-Signature': 'sha256=abc', Host: 'spoofed.example' },
      body: JSON.stringify({ hello: 'wörld' }),
    })
    const got = lastReceived()
    expect(got.method).toBe('POST')
    expect(JSON.parse(got.body)).toEqual({ hello: 'wörld' })
    expect(got.headers['content-type']).toBe('application/json')
    expect(got.headers['x-signature']).toBe('sha256=abc')
    expect(got.headers.host).toBe(`127.0.0.1:${receiver.port}`)
    expect(got.headers['content-length']).toBe(String(new TextEncoder().encode(got.body).length))
  })

  it('delivers a binary body byte for byte', async () => {
    await client.send({ method: 'PUT', url: `${receiver.origin}/echo`, body: new TextEncoder().encode('raw bytes') })
    expect(lastReceived()).toMatchObject({ method: 'PUT', body: 'raw bytes' })
  })

  it('joins repeated response headers', async () => {
    const response = await client.send({ method: 'GET', url: `${receiver.origin}/cookies` })
    expect(response.headers['set-cookie']).toBe('a=1, b=2')
  })

  it('returns a redirect as is instead of following it', async () => {
    const before = receiver.received.length
    const response = await client.send({ method: 'GET', url: `${receiver.origin}/redirect` })
    expect(response.status).toBe(302)
    expect(response.headers.location).toBe('/echo')
    expect(receiver.received.length).toBe(before + 1)
  })

  it('cuts the body at maxResponseBytes and says so', async () => {
    const response = await client.send({
      method: 'GET',
      url: `${receiver.origin}/bytes?bytes=5000`,
      maxResponseBytes: 1000,
    })
    expect(response.truncated).toBe(true)
    expect(response.body).toBe('x'.repeat(1000))
  })

  it('keeps a body of exactly maxResponseBytes whole', async () => {
    const response = await client.send({
      method: 'GET',
      url: `${receiver.origin}/bytes?bytes=1000`,
      maxResponseBytes: 1000,
    })
    expect(response.truncated).toBe(false)
    expect(response.body).toHaveLength(1000)
  })

  it('stops reading an endless body at the limit and hangs up', async () => {
    const response = await client.send({ method: 'GET', url: `${receiver.origin}/endless`, maxResponseBytes: 200_000 })
    expect(response.truncated).toBe(true)
    expect(response.body).toHaveLength(200_000)
    await eventually(() => receiver.hangUps > 0, 'the receiver to see the client hang up')
    expect(receiver.hangUps).toBe(1)
  })

  it('reads at most 1 MiB and waits at most 15 s by default', async () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(1024 * 1024)
    expect(DEFAULT_OUTBOUND_TIMEOUT_MS).toBe(15_000)
    const response = await client.send({ method: 'GET', url: `${receiver.origin}/endless` })
    expect(response.truncated).toBe(true)
    expect(response.body).toHaveLength(DEFAULT_MAX_RESPONSE_BYTES)
  })

  it('gives up on an answer that does not come with an OutboundTimeoutError', async () => {
    // The answer would come after the test's own timeout: only the client's can end the call.
    const sending = client.send({ method: 'GET', url: `${receiver.origin}/slow?ms=600000`, timeoutMs: 200 })
    const error = await sending.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OutboundTimeoutError)
    expect((error as OutboundTimeoutError).timeoutMs).toBe(200)
  })

  it("rejects with the caller's reason when its signal aborts", async () => {
    const controller = new AbortController()
    const sending = client.send({ method: 'GET', url: `${receiver.origin}/slow?ms=3000`, signal: controller.signal })
    setTimeout(() => controller.abort(new Error('run cancelled')), 50)
    await expect(sending).rejects.toThrow('run cancelled')
  })

  it('connects to the address the injected resolver gave for a name, not to what system DNS says', async () => {
    const named = createGuardedHttpClient({ allow: ['127.0.0.1/32'], resolve: async () => ['127.0.0.1'] })
    const response = await named.send({ method: 'GET', url: `http://hooks.example:${receiver.port}/echo` })
    expect(response.status).toBe(201)
    expect(response.remoteAddress).toBe('127.0.0.1')
    expect(lastReceived().headers.host).toBe(`hooks.example:${receiver.port}`)
  })

  it('reaches a host allow-listed by name whatever it resolves to', async () => {
    const named = createGuardedHttpClient({ allow: ['receiver.internal'], resolve: async () => ['127.0.0.1'] })
    const response = await named.send({ method: 'GET', url: `http://receiver.internal:${receiver.port}/echo` })
    expect(response.status).toBe(201)
  })
})
