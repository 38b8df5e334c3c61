/** A local HTTP receiver on 127.0.0.1 that records what reaches it; the only host tests talk to. */

export interface ReceivedRequest {
  method: string
  path: string
  headers: Record<string, string>
  body: string
}

export interface Receiver {
  readonly port: number
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly received: ReceivedRequest[]
  /** Endless bodies the client hung up on. */
  readonly hangUps: number
  stop(): Promise<void>
}

export function startReceiver(): Receiver {
  const received: ReceivedRequest[] = []
  let hangUps = 0
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url)
      received.push({
        method: request.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
      })
      const size = Number(url.searchParams.get('bytes') ?? 0)
      switch (url.pathname) {
        case '/echo':
          return Response.json(received.at(-1), { status: 201, headers: { 'X-Receiver': 'Yes' } })
        case '/cookies': {
          const headers = new Headers([
            ['Set-Cookie', 'a=1'],
            ['Set-Cookie', 'b=2'],
          ])
          return new Response('ok', { headers })
        }
        case '/redirect':
          return new Response(null, { status: 302, headers: { Location: '/echo' } })
        case '/slow':
          await Bun.sleep(Number(url.searchParams.get('ms') ?? 2000))
          return new Response('late')
        case '/bytes':
          return new Response('x'.repeat(size))
        case '/endless':
          return new Response(
            endless(() => {
              hangUps++
            }),
          )
        default:
          return new Response('not here', { status: 404 })
      }
    },
  })
  const port = server.port!
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    received,
    get hangUps() {
      return hangUps
    },
    stop: () => server.stop(true),
  }
}

function endless(onCancel: () => void): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x79)
  return new ReadableStream({
    async pull(controller) {
      controller.enqueue(chunk)
      await Bun.sleep(1)
    },
    cancel: onCancel,
  })
}
