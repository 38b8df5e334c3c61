/**
 * The endpoint the help desk posts ticket updates to. Each registration has its own signing
 * secret, kept by `onEnable` in the subscription's store: with auth kind `subscription` the host
 * hands `verify` each stored secret of the organization's subscriptions until one passes.
 */
import type { Sdk } from 'automaton/sdk'

interface UpdateEvent {
  id: string
  type: string
  ticket: { id: string; status: string; queue: string }
  changes: string[]
}

export function events({ defineWebhook }: Sdk) {
  return defineWebhook({
    name: 'events',
    description: 'Ticket updates the help desk posts, signed in X-Helpdesk-Signature (hex HMAC-SHA256 of the body).',
    path: '/v1/orgs/:orgId/integrations/helpdesk',
    auth: { kind: 'subscription', key: 'secret' },
    async verify(request, ctx) {
      const expected = await ctx.crypto.hmacSha256(ctx.secret ?? '', request.rawBody)
      if (!ctx.crypto.safeEqual(expected, request.headers['x-helpdesk-signature'] ?? ''))
        return { ok: false, status: 401, reason: 'the signature does not match' }
      const event = request.body as Partial<UpdateEvent> | undefined
      if (typeof event?.id !== 'string' || typeof event.ticket?.id !== 'string')
        return { ok: false, status: 400, reason: 'not a help-desk event' }
      return { ok: true }
    },
    receive(request) {
      const event = request.body as UpdateEvent
      if (event.type !== 'ticket.updated') return { events: [] }
      const { id, status, queue } = event.ticket
      return {
        events: [
          {
            triggerType: 'helpdesk-ticket-updated',
            eventId: event.id,
            body: { id, status, queue, changes: event.changes },
          },
        ],
      }
    },
  })
}
