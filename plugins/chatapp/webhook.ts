/**
 * The chat platform's events webhook, POST /v1/integrations/chatapp/events. One chat app
 * serves the whole installation, so its signing secret is the operator setting
 * AUTOMATON_CHATAPP_SIGNING_SECRET. Each request carries `X-Chatapp-Request-Timestamp` (Unix
 * seconds, within 5 minutes of the server's clock) and `X-Chatapp-Signature: v0=<hex
 * HMAC-SHA256 of "v0:<timestamp>:<raw body>">`. A `url_verification` request (the platform
 * checking the URL) is answered with its challenge. Events go, by their team id, to every
 * organization holding a chatapp connector for that team (see events.ts for the mapping).
 */
import { defineWebhook, type WebhookVerdict } from '../../core/plugin/sdk.ts'
import { eventsOfCallback, eventsOfInteraction } from './events.ts'

export const TOLERANCE_SECONDS = 300

const refuse = (reason: string): WebhookVerdict => ({ ok: false, status: 401, reason })

/** The JSON of an interaction's `payload` form field, or undefined. */
function interactionOf(rawBody: string): Record<string, unknown> | undefined {
  try {
    const payload = new URLSearchParams(rawBody).get('payload')
    return payload ? JSON.parse(payload) : undefined
  } catch {
    return undefined
  }
}

export const events = defineWebhook({
  name: 'events',
  description: 'Events and interactions of the chat platform app, signed with AUTOMATON_CHATAPP_SIGNING_SECRET',
  path: '/v1/integrations/chatapp/events',
  auth: { kind: 'setting', setting: 'AUTOMATON_CHATAPP_SIGNING_SECRET' },
  async verify(request, ctx) {
    const timestamp = request.headers['x-chatapp-request-timestamp'] ?? ''
    const signature = request.headers['x-chatapp-signature'] ?? ''
    if (!/^\d{1,12}$/.test(timestamp))
      return refuse('the X-Chatapp-Request-Timestamp header is missing or not Unix seconds')
    if (!signature.startsWith('v0=')) return refuse('the X-Chatapp-Signature header is missing or not v0=<hex>')
    if (Math.abs(Math.floor(ctx.now() / 1000) - Number(timestamp)) > TOLERANCE_SECONDS)
      return refuse("the request timestamp is more than 5 minutes away from the server's clock")
    const expected = `v0=${await ctx.crypto.hmacSha256(ctx.secret!, `v0:${timestamp}:${request.rawBody}`)}`
    if (!ctx.crypto.safeEqual(expected, signature.toLowerCase())) return refuse('the signature does not match')
    // A signed request without a body carries no event: it is skipped, not refused.
    if (request.rawBody.trim() === '') return { ok: true }
    const body = request.body ?? interactionOf(request.rawBody)
    if (!body || typeof body !== 'object')
      return { ok: false, status: 400, reason: 'the body must be a JSON event or an interaction payload' }
    return { ok: true }
  },
  receive(request) {
    if (request.rawBody.trim() === '') return { events: [] }
    const body = (request.body ?? interactionOf(request.rawBody)) as Record<string, any>
    if (body.type === 'url_verification')
      return { respond: { status: 200, body: { challenge: String(body.challenge ?? '') } } }
    if (body.type === 'event_callback') return { events: eventsOfCallback(body) }
    return { events: eventsOfInteraction(body) }
  },
})
