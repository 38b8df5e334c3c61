/**
 * The event source (`eventsource`): one webhook through which an external service delivers the
 * generic trigger types (on-chain, market, e-mail, approvals) to an organization. It defines no
 * trigger types of its own; those come from the onchain, markets, email and core plugins.
 */
import { definePlugin } from '../../core/plugin/sdk.ts'
import { events } from './webhook.ts'

export default definePlugin({ id: 'eventsource', name: 'Event source', version: '1.0.0', webhooks: [events] })
