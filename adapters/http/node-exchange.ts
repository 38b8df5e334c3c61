/**
 * One request and its response over node:http / node:https, which Bun and Deno both provide.
 * node:http is used rather than fetch for its `lookup` hook: the runtime connects to the addresses
 * the hook hands back, and TLS still checks the certificate against the host name. It never
 * follows redirects, reads at most `maxResponseBytes` of the body and then hangs up, and opens a
 * fresh connection per request (`agent: false`) unless it is given a keep-alive agent, which only
 * gets back connections whose response was read to its end.
 */
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import type { OutboundResponse } from '../../core/ports/http-client.ts'

export interface ExchangeOptions {
  readonly url: URL
  /** The host to connect to, without brackets. */
  readonly host: string
  readonly method: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string | Uint8Array
  readonly maxResponseBytes: number
  /** Aborting rejects with the signal's reason and hangs up. */
  readonly signal: AbortSignal
  /** Resolves the host at connect time; omitted for an IP address. */
  readonly lookup?: LookupFunction
  /** The TLS server name (SNI and certificate check); omitted for an IP address. */
  readonly servername?: string
  /** The address to report when the socket does not tell. */
  readonly fallbackAddress: () => string | null
  /** Keeps connections for reuse; a fresh connection per request when absent. */
  readonly agent?: http.Agent
}

const encoder = new TextEncoder()

export function exchange(options: ExchangeOptions): Promise<OutboundResponse> {
  const { signal } = options
  const started = performance.now()
  const payload = typeof options.body === 'string' ? encoder.encode(options.body) : options.body
  return new Promise<OutboundResponse>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    let settled = false
    let request: http.ClientRequest | undefined
    /** `reusable`: the response was read to its end, so a keep-alive connection may serve another request. */
    const finish = (outcome: () => void, reusable = false) => {
      if (settled) return
      settled = true
      signal.removeEventListener('abort', onAbort)
      outcome()
      if (!reusable || !options.agent) request?.destroy()
    }
    const onAbort = () => finish(() => reject(signal.reason))
    const onResponse = (response: http.IncomingMessage) => {
      const remoteAddress =
        response.socket?.remoteAddress ?? request?.socket?.remoteAddress ?? options.fallbackAddress()
      readResponse(response, options.maxResponseBytes, () => settled, {
        done: (read) =>
          finish(
            () => resolve({ ...read, durationMs: Math.round(performance.now() - started), remoteAddress }),
            !read.truncated,
          ),
        fail: (error) => finish(() => reject(error)),
      })
    }
    try {
      request = open(options, payload, onResponse)
    } catch (error) {
      // Bad method or header values throw here, before anything is sent.
      return reject(error)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    request.on('error', (error) => finish(() => reject(error)))
    request.end(payload)
  })
}

function open(
  options: ExchangeOptions,
  payload: Uint8Array | undefined,
  onResponse: (response: http.IncomingMessage) => void,
) {
  const { url } = options
  return (url.protocol === 'https:' ? https : http).request(
    {
      protocol: url.protocol,
      hostname: options.host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: options.method.toUpperCase(),
      headers: requestHeaders(url, options.headers, payload),
      agent: options.agent ?? false,
      lookup: options.lookup,
      servername: options.servername,
    },
    onResponse,
  )
}

type ReadResponse = Pick<OutboundResponse, 'status' | 'headers' | 'body' | 'truncated'>

/** Reads the body until its end or the limit, whichever comes first. */
function readResponse(
  response: http.IncomingMessage,
  limit: number,
  settled: () => boolean,
  to: { done(read: ReadResponse): void; fail(error: Error): void },
): void {
  const body = createBodyBuffer(limit)
  const done = (truncated: boolean) =>
    to.done({
      status: response.statusCode ?? 0,
      headers: flattenHeaders(response.headers),
      body: body.text(),
      truncated,
    })
  response.on('data', (chunk: Uint8Array) => {
    if (!settled() && !body.add(chunk)) done(true)
  })
  response.on('end', () => done(false))
  response.on('error', to.fail)
}

/** Collects chunks up to a limit; `add` answers false once a chunk did not fit whole. */
function createBodyBuffer(limit: number) {
  const chunks: Uint8Array[] = []
  let size = 0
  return {
    add(chunk: Uint8Array): boolean {
      const room = limit - size
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
      chunks.push(kept)
      size += kept.length
      return kept.length === chunk.length
    },
    text(): string {
      const all = new Uint8Array(size)
      let at = 0
      for (const chunk of chunks) {
        all.set(chunk, at)
        at += chunk.length
      }
      return new TextDecoder().decode(all)
    },
  }
}

/** The caller's headers, except the ones that frame the message or name the host: those are ours. */
function requestHeaders(
  url: URL,
  given: Readonly<Record<string, string>> = {},
  payload?: Uint8Array,
): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(given)) {
    if (!OWN_HEADERS.has(name.toLowerCase())) headers[name] = value
  }
  headers.host = url.host
  if (payload) headers['content-length'] = String(payload.byteLength)
  return headers
}

const OWN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding'])

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}
