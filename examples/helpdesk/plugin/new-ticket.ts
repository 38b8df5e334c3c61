/**
 * "New ticket": a polling trigger. The help desk numbers its tickets, so the cursor is the highest
 * number seen and each poll asks for the tickets after it; the host keeps the cursor and the seen
 * keys in the transaction that starts the runs, so a ticket starts one run, whatever crashes.
 */
import type { Sdk } from 'automaton/sdk'
import { answerOf, helpdeskApi } from './api.ts'
import type { HelpdeskConnector } from './index.ts'

export function newTicket({ defineTrigger, Type, TriggerEvent }: Sdk, connector: HelpdeskConnector) {
  const Ticket = Type.Object({
    id: Type.String(),
    number: Type.Integer(),
    subject: Type.String(),
    queue: Type.String(),
    requester: Type.String(),
    createdAt: Type.String(),
  })
  return defineTrigger({
    type: 'helpdesk-new-ticket',
    name: 'New ticket',
    description: 'A ticket opened at the help desk, in any queue or in one.',
    tags: ['support'],
    platform: 'helpdesk',
    connector,
    payload: Type.Object({
      queue: Type.Optional(Type.String({ description: 'only tickets of this queue' })),
      fireExisting: Type.Optional(Type.Boolean({ description: 'also start runs for the tickets already open' })),
    }),
    result: TriggerEvent(Ticket),
    poll: {
      intervalMs: 60_000,
      async poll(ctx) {
        const after = (ctx.cursor as { after?: number } | null)?.after ?? 0
        const query = new URLSearchParams({ after: String(after), limit: '100' })
        if (ctx.payload.queue) query.set('queue', ctx.payload.queue)
        const page = answerOf<{ tickets: (typeof Ticket.static)[] }>(
          await helpdeskApi(ctx, ctx.connector).get(`/api/tickets?${query}`),
          'listing tickets',
        )
        // The help desk answers oldest first, as the host starts runs.
        return {
          items: page.tickets.map((ticket) => ({ key: ticket.id, body: ticket })),
          cursor: { after: page.tickets.at(-1)?.number ?? after },
        }
      },
    },
  })
}
