import { afterAll, describe, expect, it } from 'bun:test'
import { createGuardedHttpClient } from '../../../adapters/http/guarded-client.ts'
import { TargetRefusedError } from '../../../core/ports/http-client.ts'

/** A receiver that answers with the client port each request came from. */
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(request, srv) {
    const size = Number(new URL(request.url).searchParams.get('bytes') ?? 0)
    return new Response(`${srv.requestIP(request)!.port}${'x'.repeat(size)}`)
  },
})
afterAll(() => server.stop(true))
const origin = `http://127.0.0.1:${server.port}`
const portOf = (body: string) => body.replace(/x+$/, '')

describe('keep-alive connections of the guarded client', () => {
  it('reuses one connection for requests to the same host, and opens one per request without keepAlive', async () => {
    const kept = createGuardedHttpClient({ allow: ['127.0.0.1/32'], keepAlive: true })
    const ports = new Set<string>()
    for (let i = 0; i < 3; i++) ports.add(portOf((await kept.send({ method: 'GET', url: `${origin}/a` })).body))
    expect(ports.size).toBe(1)
    const fresh = createGuardedHttpClient({ allow: ['127.0.0.1/32'] })
    const freshPorts = new Set<string>()
    for (let i = 0; i < 3; i++) freshPorts.add(portOf((await fresh.send({ method: 'GET', url: `${origin}/a` })).body))
    expect(freshPorts.size).toBe(3)
  })

  it('does not keep a connection whose response it stopped reading', async () => {
    const kept = createGuardedHttpClient({ allow: ['127.0.0.1/32'], keepAlive: true })
    const first = await kept.send({ method: 'GET', url: `${origin}/big?bytes=100000`, maxResponseBytes: 8 })
    expect(first.truncated).toBe(true)
    const second = await kept.send({ method: 'GET', url: `${origin}/small` })
    expect(portOf(second.body)).not.toBe(portOf(first.body))
    expect(second.status).toBe(200)
  })

  it('still refuses a name that now resolves to a forbidden address while a connection to it is open', async () => {
    const answers = ['127.0.0.1', '127.0.0.1', '127.0.0.1', '10.0.0.5']
    const kept = createGuardedHttpClient({
      allow: ['127.0.0.1/32'],
      keepAlive: true,
      resolve: async () => [answers.shift() ?? '10.0.0.5'],
    })
    const url = `http://rebind.example:${server.port}/a`
    expect((await kept.send({ method: 'GET', url })).status).toBe(200)
    expect((await kept.send({ method: 'GET', url })).status).toBe(200)
    const error = await kept.send({ method: 'GET', url }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TargetRefusedError)
    expect(error).toMatchObject({ address: '10.0.0.5', range: 'private' })
  })
})
