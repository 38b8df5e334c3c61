/**
 * An example plugin for an imaginary help-desk platform, written only with the SDK: an OAuth2
 * connector type with a check, a polling trigger (new tickets), a subscribed trigger (ticket
 * updates, with the webhook they arrive at) and an action whose agent field loads its options.
 * The default export receives the SDK; the `import type` lines are erased at run time.
 *
 * Load it with AUTOMATON_PLUGINS_DIR=examples/helpdesk (this folder's index.ts is the plugin).
 */
import type { Sdk } from 'automaton/sdk'
import { helpdeskConnector } from './connector.ts'
import { events } from './events.ts'
import { newTicket } from './new-ticket.ts'
import { replyToTicket } from './reply.ts'
import { ticketUpdated } from './ticket-updated.ts'

export type HelpdeskConnector = ReturnType<typeof helpdeskConnector>

export default (sdk: Sdk) => {
  const connector = helpdeskConnector(sdk)
  return sdk.definePlugin({
    id: 'helpdesk',
    name: 'Help desk',
    version: '1.0.0',
    author: 'Example Help Desk',
    connector,
    triggers: [newTicket(sdk, connector), ticketUpdated(sdk, connector)],
    actions: [replyToTicket(sdk, connector)],
    webhooks: [events(sdk)],
  })
}
