/** A local HTTP receiver on 127.0.0.1 that records requests and answers as told. */
export interface Received {
  method: string
  path: string
  headers: Record<string, string>
  body: string
  at: number
}

export interface Receiver {
  url: string
  requests: Received[]
  /** Sets how the next requests are answered: a status (and body), or a function of the request. */
  respond(plan: (req: Received, index: number) => Response | Promise<Response>): void
  stop(): Promise<void>
}

export function startReceiver(): Receiver {
  const requests: Received[] = []
  let plan: (req: Received, index: number) => Response | Promise<Response> = () => Response.json({ ok: true })
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url)
      const received: Received = {
        method: request.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
        at: Date.now(),
      }
      requests.push(received)
      return plan(received, requests.length - 1)
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    respond(next) {
      plan = next
    },
    async stop() {
      await server.stop(true)
    },
  }
}

export interface HeldReceiver extends Receiver {
  /** Answers every request held so far, and those to come, `{ ok: true }`. */
  answer(): void
}

/** A receiver that holds each request until the test calls `answer()`: a node calling it stays executing meanwhile. */
export function startHeldReceiver(): HeldReceiver {
  const receiver = startReceiver()
  let answer!: () => void
  const answered = new Promise<void>((resolve) => (answer = resolve))
  receiver.respond(async () => {
    await answered
    return Response.json({ ok: true })
  })
  return { ...receiver, answer }
}
