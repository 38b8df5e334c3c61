/**
 * The payment provider's webhook, POST /v1/orgs/{orgId}/integrations/payprovider. Requests are
 * signed: `Payprovider-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`,
 * keyed by the `signingSecret` of the organization's payprovider connector. During a secret
 * rotation the provider sends several `v1` values; any one may match. The timestamp must be
 * within 300 seconds of the server's clock (replays of old requests are refused). Events are
 * `{ id, type, created, data: { object } }`; payments (payment_intent.succeeded,
 * charge.succeeded) become `payprovider-payment-receive` events, other types are acknowledged
 * and ignored.
 */
import { defineWebhook, type WebhookRequest, type WebhookVerdict } from '../../core/plugin/sdk.ts'
import { connector, PAYMENT_EVENTS } from './definitions.ts'

export const TOLERANCE_SECONDS = 300
export const SIGNATURE_HEADER = 'payprovider-signature'

/** `t=…,v1=…,v1=…` → the timestamp and every v1 signature; null when there is no timestamp or no v1. */
export function parseSignature(header: string): { timestamp: number; signatures: string[] } | null {
  let timestamp = Number.NaN
  const signatures: string[] = []
  for (const part of header.split(',')) {
    const [key, value] = part.split('=', 2).map((s) => s?.trim() ?? '')
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value)
    if (key === 'v1' && /^[0-9a-fA-F]{64}$/.test(value)) signatures.push(value.toLowerCase())
  }
  return Number.isFinite(timestamp) && signatures.length > 0 ? { timestamp, signatures } : null
}

const refuse = (status: 400 | 401, reason: string): WebhookVerdict => ({ ok: false, status, reason })

/** What is wrong with the event's shape, or null. */
function malformed(body: unknown): string | null {
  const e = body as { id?: unknown; type?: unknown; created?: unknown; data?: { object?: unknown } } | undefined
  if (!e || typeof e !== 'object' || Array.isArray(e)) return 'the body must be a JSON event object'
  if (typeof e.id !== 'string' || !e.id || e.id.length > 255) return 'the event needs an id (a string)'
  if (typeof e.type !== 'string' || !e.type) return 'the event needs a type (a string)'
  if (e.created !== undefined && !Number.isInteger(e.created)) return 'created must be Unix seconds'
  if (!e.data || typeof e.data !== 'object' || !e.data.object || typeof e.data.object !== 'object')
    return 'the event needs data.object'
  return null
}

export const events = defineWebhook({
  name: 'events',
  description: "Payment provider events, signed with the signing secret of the organization's payprovider connector",
  path: '/v1/orgs/:orgId/integrations/payprovider',
  auth: { kind: 'connector', connector },
  async verify(request: WebhookRequest, ctx) {
    const header = request.headers[SIGNATURE_HEADER]
    if (!header) return refuse(401, 'the Payprovider-Signature header is missing')
    const parsed = parseSignature(header)
    if (!parsed)
      return refuse(401, 'the Payprovider-Signature header needs t=<unix seconds> and at least one v1=<hex signature>')
    if (Math.abs(Math.floor(ctx.now() / 1000) - parsed.timestamp) > TOLERANCE_SECONDS) {
      return refuse(
        401,
        `the signature timestamp is more than ${TOLERANCE_SECONDS} seconds away from the server's clock`,
      )
    }
    const expected = await ctx.crypto.hmacSha256(ctx.connector!.signingSecret, `${parsed.timestamp}.${request.rawBody}`)
    // Compare with every v1 (no early exit), so timing says nothing about which one matched.
    const matched = parsed.signatures.map((s) => ctx.crypto.safeEqual(expected, s)).includes(true)
    if (!matched) return refuse(401, "no v1 signature matches the connector's signing secret")
    const problem = malformed(request.body)
    return problem ? refuse(400, problem) : { ok: true }
  },
  receive(request) {
    const event = request.body as { id: string; type: string }
    if (!PAYMENT_EVENTS.includes(event.type)) return { events: [] }
    return { events: [{ triggerType: 'payprovider-payment-receive', eventId: event.id, body: event }] }
  },
})
