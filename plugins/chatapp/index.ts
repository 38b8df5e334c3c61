/** The chat platform (`chatapp`): its connector and trigger types. Its events webhook is mounted by the integrations. */
import { definePlugin } from '../../core/plugin/sdk.ts'
import { chatappConnector } from './connector.ts'
import { chatappTriggers } from './triggers.ts'

export default definePlugin({
  id: 'chatapp',
  name: 'Chat platform',
  version: '1.0.0',
  connector: chatappConnector,
  triggers: chatappTriggers,
})
