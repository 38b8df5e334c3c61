/**
 * What is hidden before anything is logged or stored: credentials in request paths (a workflow
 * webhook's secret is its path) and in headers a caller sends with an event.
 */

/** Header names that carry credentials: their values are replaced before a run or a log keeps them. */
export const CREDENTIAL_HEADER = /token|key|secret|signature|auth|cookie|session|password|credential/i
export const REDACTED = '[redacted]'

/** Headers with the values of credential-like names replaced (`extra` names too, exact, lower case). */
export function redactHeaders(
  headers: Record<string, string>,
  extra: ReadonlySet<string> = new Set(),
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase()
    out[lower] = CREDENTIAL_HEADER.test(lower) || extra.has(lower) ? REDACTED : value
  }
  return out
}

const SECRET_SEGMENTS = [/^(\/v1\/webhooks\/)[^/?#]+/]
const SECRET_QUERY = /([?&](?:secret|token|key|signature|sig|api_key|apikey|access_token)=)[^&#]*/gi

/** A request path (with its query) fit for a log line: path secrets and credential parameters replaced. */
export function redactPath(path: string): string {
  let out = path
  for (const pattern of SECRET_SEGMENTS) out = out.replace(pattern, `$1${REDACTED}`)
  return out.replace(SECRET_QUERY, `$1${REDACTED}`)
}
