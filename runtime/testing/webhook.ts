/**
 * Runs a webhook's `verify` then `receive` in isolation, with the context the host gives it
 * (the connector data or secret, the clock, Web Crypto helpers), and checks that what it
 * returns is a well-formed reply. Routing, deduplication and storage are the host's and are
 * not simulated.
 */
import type {
  ConnectorData,
  WebhookDefinition,
  WebhookEvent,
  WebhookReply,
  WebhookRequest,
  WebhookResponse,
  WebhookResult,
  WebhookVerdict,
} from '../../core/plugin/sdk.ts'
import { webhookCrypto } from '../../core/plugin/webhook-crypto.ts'
import { TestKitError } from './trigger.ts'

export interface WebhookRequestInit {
  body?: unknown
  /** The raw body; default: the JSON of `body`. */
  rawBody?: string
  headers?: Record<string, string>
  query?: Record<string, string>
  params?: Record<string, string>
  url?: string
}

/** A WebhookRequest: header names lower-cased, `rawBody` and `body` derived from each other. */
export function webhookRequest(init: WebhookRequestInit = {}): WebhookRequest {
  const rawBody = init.rawBody ?? (init.body === undefined ? '' : JSON.stringify(init.body))
  let body = init.body
  if (body === undefined && rawBody) {
    try {
      body = JSON.parse(rawBody)
    } catch {
      body = undefined
    }
  }
  const headers = Object.fromEntries(Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]))
  return {
    method: 'POST',
    url: init.url ?? 'http://localhost/',
    params: init.params ?? {},
    query: init.query ?? {},
    headers,
    rawBody,
    body,
  }
}

export interface RunWebhookOptions<K = ConnectorData> {
  /** With auth kind `connector`: the connector data the host would try. */
  connector?: K | null
  /** With auth kind `organization` or `setting`: the secret. */
  secret?: string | null
  organizationId?: string | null
  /** The clock, in milliseconds since the epoch (default: now). */
  now?: number
}

/**
 * What one request came to, flat: whether `verify` passed, the status the host would answer,
 * the events `receive` produced, or the direct answer it asked for.
 */
export interface WebhookRun {
  /** Whether `verify` passed. */
  verified: boolean
  /** `verify`'s answer as returned. */
  verdict: WebhookVerdict
  /** The status the host answers: `verify`'s refusal, a direct answer's status, else 200. */
  status: number
  /** The body of a direct answer (`respond`), or `{ error: reason }` when `verify` refused; else null (the host answers its routing result). */
  body: unknown
  /** The headers of a direct answer; else empty. */
  headers: Record<string, string>
  /** The events `receive` returned (empty when refused or answered directly). */
  events: WebhookEvent[]
  /** `verify`'s reason when it refused, else null. */
  reason: string | null
  /** The direct answer `receive` asked for (a URL-verification challenge), else null. */
  respond: WebhookResponse | null
  /** The lines the handlers logged. */
  logs: string[]
}

function checkReply(reply: unknown): WebhookReply {
  const r = reply as Record<string, unknown> | null
  if (r && typeof r === 'object' && 'respond' in r && r.respond && typeof r.respond === 'object')
    return r as unknown as WebhookReply
  if (!r || typeof r !== 'object' || !Array.isArray(r.events))
    throw new TestKitError('receive() must return { events: [...] } or { respond: { body } }')
  r.events.forEach((e: Partial<WebhookEvent>, i: number) => {
    if (!e || typeof e.triggerType !== 'string' || !e.triggerType)
      throw new TestKitError(`events[${i}] needs a triggerType`)
    if (typeof e.eventId !== 'string' || !e.eventId)
      throw new TestKitError(`events[${i}] needs an eventId (the provider's id, for deduplication)`)
  })
  return r as unknown as WebhookReply
}

/**
 * Verifies and receives one request.
 *
 * @example
 * ```ts
 * const out = await runWebhook(events, webhookRequest({ body, headers: { 'x-signature': sig } }), { connector: { apiKey: 'k' } })
 * expect(out.events).toEqual([{ triggerType: 'weather-alert', eventId: 'a1', body }])
 * ```
 */
export async function runWebhook<K>(
  webhook: WebhookDefinition<K>,
  request: WebhookRequest | WebhookRequestInit,
  options: RunWebhookOptions<K> = {},
): Promise<WebhookRun> {
  const req = 'rawBody' in request && 'method' in request ? (request as WebhookRequest) : webhookRequest(request)
  const logs: string[] = []
  const ctx = {
    organizationId: options.organizationId ?? req.params.orgId ?? null,
    connector: options.connector ?? null,
    secret: options.secret ?? null,
    now: () => options.now ?? Date.now(),
    log: (message: string, fields?: Record<string, unknown>) =>
      void logs.push(fields ? `${message} ${JSON.stringify(fields)}` : message),
    crypto: webhookCrypto,
  }
  const verdict = await webhook.verify(req, ctx)
  if (!verdict || typeof verdict !== 'object' || typeof verdict.ok !== 'boolean')
    throw new TestKitError('verify() must return { ok: true } or { ok: false, status, reason }')
  const refused = { verified: false, verdict, events: [], respond: null, headers: {}, logs }
  if (!verdict.ok)
    return { ...refused, status: verdict.status, body: { error: verdict.reason }, reason: verdict.reason }
  const reply = checkReply(await webhook.receive(req, ctx))
  const passed = { verified: true, verdict, reason: null, logs }
  if ('respond' in reply) {
    const { respond } = reply
    const headers = { ...respond.headers }
    return { ...passed, status: respond.status ?? 200, body: respond.body ?? null, headers, events: [], respond }
  }
  return { ...passed, status: 200, body: null, headers: {}, events: [...reply.events], respond: null }
}

/** The HTTP answer the host would give for a routing result (the webhook's `answer`, or the result itself). */
export function answerWebhook<K>(
  webhook: WebhookDefinition<K>,
  result: WebhookResult,
  request: WebhookRequest = webhookRequest(),
): WebhookResponse {
  return webhook.answer ? webhook.answer(result, request) : { status: 200, body: result }
}
