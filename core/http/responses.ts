/**
 * The one place that shapes response bodies: the success envelope, the error body, and the
 * few endpoints that answer without the envelope.
 */
import type { ErrorDetail } from '../errors.ts'

/** A handler returns `raw(body)` for endpoints whose body is not wrapped in the envelope. */
export class Raw {
  constructor(
    readonly body: unknown,
    readonly status = 200,
  ) {}
}
export const raw = (body: unknown, status = 200) => new Raw(body, status)

/** A JSON response; `headers` (the caller's own object) is completed in place with the content type unless it names one. */
export function jsonResponse(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  headers['content-type'] ??= 'application/json; charset=utf-8'
  return new Response(JSON.stringify(body), { status, headers })
}

export function envelope(data: unknown, requestId: string) {
  return { code: 200, data: data === undefined ? null : data, message: 'success', requestId }
}

export function errorBody(
  status: number,
  message: string,
  details: readonly ErrorDetail[],
  requestId: string,
  reason?: string,
) {
  return reason
    ? { code: status, message, reason, details: [...details], requestId }
    : { code: status, message, details: [...details], requestId }
}
