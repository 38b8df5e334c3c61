/**
 * Outbound HTTP for workflow nodes (`http-request`, `send-webhook`) and execution-hook delivery.
 * Every implementation guards against SSRF: it refuses private, loopback, link-local and metadata
 * targets unless an operator allow-lists them, and it checks the address it actually connects to.
 * It will not follow redirects, keep cookies, decompress or retry; callers decide what to do with
 * a 3xx, a 5xx or an error.
 */

export interface OutboundRequest {
  method: string
  url: string
  headers?: Record<string, string>
  body?: string | Uint8Array
  /** Whole exchange, name resolution included. Default 15 000 ms. */
  timeoutMs?: number
  /** The body is cut here and `truncated` set. Default 1 MiB. */
  maxResponseBytes?: number
  signal?: AbortSignal
}

export interface OutboundResponse {
  status: number
  /** Lower-cased names; repeated headers joined with `, `. */
  headers: Record<string, string>
  /** Decoded as UTF-8. */
  body: string
  truncated: boolean
  durationMs: number
  /** The address the connection went to, when the runtime tells. */
  remoteAddress: string | null
}

export const DEFAULT_OUTBOUND_TIMEOUT_MS = 15_000
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024

/** Why a target was refused; `forbidden-*` are the SSRF guard, the rest malformed targets. */
export type TargetRefusal = 'invalid-url' | 'scheme' | 'credentials' | 'forbidden-hostname' | 'forbidden-address'

export class TargetRefusedError extends Error {
  override name = 'TargetRefusedError'
  readonly address?: string
  /** The forbidden range the address falls in (`loopback`, `cloud-metadata` …). */
  readonly range?: string

  constructor(
    readonly reason: TargetRefusal,
    message: string,
    where: { address?: string; range?: string } = {},
  ) {
    super(message)
    if (where.address !== undefined) this.address = where.address
    if (where.range !== undefined) this.range = where.range
  }
}

export class OutboundTimeoutError extends Error {
  override name = 'OutboundTimeoutError'

  constructor(readonly timeoutMs: number) {
    super(`no complete response within ${timeoutMs} ms`)
  }
}

export interface HttpClient {
  /**
   * Refuses URLs that are not http(s), carry credentials, or whose host is or resolves to a
   * forbidden address, with a `TargetRefusedError`. A name that does not resolve rejects with the
   * resolver's error instead: it is not known to be forbidden.
   */
  checkTarget(url: string): Promise<void>
  /**
   * Sends one request; never follows redirects (a 3xx is returned as is); checks the target again
   * at connect time. Rejects with `TargetRefusedError`, `OutboundTimeoutError`, the signal's
   * reason when aborted, or the network error.
   */
  send(request: OutboundRequest): Promise<OutboundResponse>
}
