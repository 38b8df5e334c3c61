/**
 * The webhook front door: `POST /v1/webhooks/{secret}` answered without the framework, which
 * spends more on each such request (its lifecycle hooks, each a closure over a context object
 * built per request, and the answer's envelope assembled through them) than admitting the run
 * costs. Every check stays, done by the same functions the framework's plugins call, in the same
 * order: the request id and the NUL check (request-id.ts), the client's address behind trusted
 * proxies (client.ts), the body's size limit (413) and parsing (400, body.ts), the route's
 * handler (404 for an unknown secret, 429 with Retry-After past the backlog, 503 while the store
 * is away: what the run service throws), the envelope (envelope.ts), the error body of the
 * specification (errors.ts) and the request metrics (metrics.ts).
 *
 * Only a plain secret takes this path (letters, digits, `_`, `-`, at most 200 characters: what
 * the route's schema accepts once decoded); anything else, and every other request, goes to the
 * framework as before.
 */
import type { Ids } from '../ports/ids.ts'
import type { Logger } from '../ports/logger.ts'
import type { Metrics } from '../ports/metrics.ts'
import { createProxyTrust } from './client-address.ts'
import { readLimited, parseBody } from './middleware/body.ts'
import { errorAnswer } from './middleware/errors.ts'
import { requestIdOf } from './middleware/request-id.ts'
import { peerAddressOf, type RequestState, setClientView, setState } from './request-state.ts'
import { envelope, jsonResponse } from './responses.ts'
import { answerWebhook, type WebhookDoor } from './routes/workflow-webhooks.ts'

/** The route's pattern, as the framework names it in the request metrics. */
const ROUTE = '/v1/webhooks/:workflowSecret'
const PREFIX = '/v1/webhooks/'
const PLAIN_SECRET = /^[A-Za-z0-9_-]{1,200}$/

export interface WebhookDoorDeps extends WebhookDoor {
  readonly ids: Ids
  readonly logger: Logger
  readonly maxBodyBytes: number
  readonly trustedProxies: readonly string[]
  readonly metrics?: Metrics
}

/** Answers `request` when it is a webhook this door takes; undefined hands it to the framework. */
export type Door = (request: Request) => Promise<Response> | undefined

export function webhookDoor(deps: WebhookDoorDeps): Door {
  const trust = createProxyTrust(deps.trustedProxies)
  return (request) => {
    if (request.method !== 'POST') return undefined
    const secret = plainSecretOf(request.url)
    if (secret === undefined) return undefined
    return answer(deps, trust, request, secret)
  }
}

/** The secret of a webhook URL without a query or anything to decode; undefined for any other URL. */
function plainSecretOf(url: string): string | undefined {
  // A NUL anywhere (the query included) gets the framework's 400 (request-id.ts).
  if (url.includes('%00')) return undefined
  const pathAt = url.indexOf('/', url.indexOf('//') + 2)
  if (pathAt < 0 || !url.startsWith(PREFIX, pathAt)) return undefined
  const query = url.indexOf('?', pathAt)
  const secret = url.slice(pathAt + PREFIX.length, query < 0 ? undefined : query)
  return PLAIN_SECRET.test(secret) ? secret : undefined
}

async function answer(
  deps: WebhookDoorDeps,
  trust: ReturnType<typeof createProxyTrust>,
  request: Request,
  secret: string,
): Promise<Response> {
  const startedAt = performance.now()
  const id = requestIdOf(request, deps.ids)
  const state: RequestState = { id, startedAt }
  setState(request, state)
  const headers: Record<string, string> = { 'x-request-id': id }
  let response: Response
  try {
    setClientView(request, trust(peerAddressOf(request), request.headers))
    const text = await readLimited(request, deps.maxBodyBytes)
    state.rawBody = text
    const body = parseBody(text, request.headers.get('content-type') ?? '')
    const value = await answerWebhook(deps, secret, body, request, { headers })
    response = value instanceof Response ? withHeaders(value, headers) : jsonResponse(envelope(value, id), 200, headers)
  } catch (error) {
    response = withHeaders(errorAnswer(deps.logger, error, undefined, request, pathOf(request.url), id), headers)
  }
  if (deps.metrics) {
    const status = String(response.status)
    deps.metrics.httpRequests.inc({ method: 'POST', route: ROUTE, status })
    deps.metrics.httpDuration.observe({ method: 'POST', route: ROUTE }, (performance.now() - startedAt) / 1000)
  }
  return response
}

/** The URL's path, as the framework reports it to the error handler. */
function pathOf(url: string): string {
  const pathAt = url.indexOf('/', url.indexOf('//') + 2)
  const query = url.indexOf('?', pathAt)
  return url.slice(pathAt, query < 0 ? undefined : query)
}

/** A response with the headers it does not name yet added, as the framework completes a returned Response. */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  let missing = false
  for (const name in headers) if (!response.headers.has(name)) missing = true
  if (!missing) return response
  const merged = new Headers(response.headers)
  for (const name in headers) if (!merged.has(name)) merged.set(name, headers[name])
  return new Response(response.body, { status: response.status, headers: merged })
}
