/**
 * The payment provider (`payprovider`): its connector (the signing secret of its webhooks), the
 * payment trigger, and the webhook POST /v1/orgs/{orgId}/integrations/payprovider that delivers
 * its events (see webhook.ts).
 */
import { definePlugin } from '../../core/plugin/sdk.ts'
import { connector, paymentReceive } from './definitions.ts'
import { events } from './webhook.ts'

export default definePlugin({
  id: 'payprovider',
  name: 'Payment provider',
  version: '1.0.0',
  connector,
  triggers: [paymentReceive],
  webhooks: [events],
})
