/**
 * Server-sent event responses: frames (`id`, `event`, `data`), a heartbeat comment, and a bound
 * on what a client that does not read may cost. Bytes wait while the socket cannot take them;
 * past `maxBufferedBytes` the client is disconnected instead of being buffered without end.
 */
export interface SseFrame {
  id: string
  event: string
  data: unknown
}

export interface SseChannel {
  send(frame: SseFrame): void
  /** Sends an already encoded frame (shared by every subscriber of the same event). */
  sendEncoded(bytes: Uint8Array): void
  /** Ends the response after what was sent. */
  close(): void
  readonly closed: boolean
}

export interface SseOptions {
  heartbeatMs: number
  maxBufferedBytes: number
  /** Called once with the channel; returns the cleanup run when the stream ends for any reason. */
  open(channel: SseChannel): Promise<() => void> | (() => void)
  /** How bytes reach the socket (the server adapter may give a better one than the default). */
  pushBody?: PushBodyFactory
  /** Extra response headers. */
  headers?: Record<string, string>
  /** Called once when the stream ends for any reason, opened or not (a slot given back). */
  ended?: () => void
}

/** A response body written from outside, as events happen. */
export interface PushBody {
  /** Queues bytes; answers how many bytes are waiting because the client has not read them yet. */
  write(chunk: Uint8Array): number
  /** Sends what was queued (writes of one moment go out together). */
  flush?(): void
  /** Ends the body after what was written. */
  close(): void
  /** Drops the connection without ending the body properly. */
  abort(reason: Error): void
}

/** Makes a body; `start` receives the writer once, `cancelled` runs when the client goes away. */
export type PushBodyFactory = (start: (body: PushBody) => void, cancelled: () => void) => ReadableStream<Uint8Array>

/**
 * The web-standard body: a ReadableStream whose queue holds what the socket could not take.
 * On Bun an errored stream keeps the connection until its buffered bytes drain, so the Bun
 * server adapter supplies its own factory that drops the connection.
 */
export const webPushBody: PushBodyFactory = (start, cancelled) => {
  const highWaterMark = 64 * 1024
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        start({
          write(chunk) {
            controller.enqueue(chunk)
            return Math.max(0, highWaterMark - (controller.desiredSize ?? 0))
          },
          close: () => controller.close(),
          abort: (reason) => controller.error(reason),
        })
      },
      cancel: () => cancelled(),
    },
    new ByteLengthQueuingStrategy({ highWaterMark }),
  )
}

const encoder = new TextEncoder()
const HEARTBEAT = encoder.encode(': heartbeat\n\n')

/** One frame as bytes: `id`, `event`, `data` lines and the blank line that ends it. */
export function encodeFrame(frame: SseFrame): Uint8Array {
  return encoder.encode(`id: ${frame.id}\nevent: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`)
}

export function sseResponse(options: SseOptions): Response {
  let body!: PushBody
  let closed = false
  let cleanup: (() => void) | null = null
  let heartbeat: ReturnType<typeof setInterval> | null = null

  const finish = () => {
    if (closed) return
    closed = true
    if (heartbeat) clearInterval(heartbeat)
    cleanup?.()
    options.ended?.()
  }

  // Frames of one moment are joined and written once: a write costs far more than a copy.
  let queued: Uint8Array[] = []
  let queuedBytes = 0
  const flush = () => {
    if (closed || queued.length === 0) return
    const chunk = queued.length === 1 ? queued[0] : join(queued, queuedBytes)
    queued = []
    queuedBytes = 0
    if (body.write(chunk) > options.maxBufferedBytes) {
      // The client does not read: let it go rather than keep buffering for it.
      finish()
      body.abort(new Error('stream consumer too slow'))
      return
    }
    body.flush?.()
  }

  const write = (bytes: Uint8Array) => {
    if (closed) return
    if (queued.length === 0) queueMicrotask(flush)
    queued.push(bytes)
    queuedBytes += bytes.byteLength
  }

  const channel: SseChannel = {
    send(frame) {
      write(encodeFrame(frame))
    },
    sendEncoded(bytes) {
      write(bytes)
    },
    close() {
      if (closed) return
      // Frames queued in this moment go out first: the stream ends after everything sent.
      flush()
      finish()
      body.close()
    },
    get closed() {
      return closed
    },
  }

  const stream = (options.pushBody ?? webPushBody)((b) => {
    body = b
    write(encoder.encode(': connected\nretry: 2000\n\n'))
    heartbeat = setInterval(() => write(HEARTBEAT), options.heartbeatMs)
    Promise.resolve()
      .then(() => options.open(channel))
      .then((done) => {
        if (closed) done()
        else cleanup = done
      })
      .catch((error) => {
        finish()
        body.abort(error instanceof Error ? error : new Error(String(error)))
      })
  }, finish)

  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...options.headers,
    },
  })
}

function join(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size)
  let offset = 0
  for (const c of chunks) {
    out.set(c, offset)
    offset += c.byteLength
  }
  return out
}

/** Last-Event-ID as a non-negative integer, from the header or `?lastEventId=`. */
export function lastEventId(request: Request, query?: string): number | null {
  const raw = request.headers.get('last-event-id') ?? query ?? null
  if (raw === null || raw === '') return null
  const n = Number(raw)
  return Number.isSafeInteger(n) && n >= 0 ? n : null
}
