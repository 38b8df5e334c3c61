/** The chat platform (`chatapp`): its connector, trigger types and events webhook (POST /v1/integrations/chatapp/events). */
import { definePlugin } from '../../core/plugin/sdk.ts'
import { chatappConnector } from './connector.ts'
import { chatappTriggers } from './triggers.ts'
import { events } from './webhook.ts'

export default definePlugin({
  id: 'chatapp',
  name: 'Chat platform',
  version: '1.0.0',
  connector: chatappConnector,
  triggers: chatappTriggers,
  webhooks: [events],
})
