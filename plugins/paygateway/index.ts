/** The second payment platform (`paygateway`): any of its events, by type. Catalog only until its integration arrives. */
import { defineConnector, definePlugin, defineTrigger, Secret, TriggerEvent, Type } from '../../core/plugin/sdk.ts'

const connector = defineConnector({
  type: 'paygateway',
  name: 'Payment gateway',
  description: 'A merchant account of the payment gateway.',
  provider: 'Payment gateway',
  tags: ['payments'],
  data: Type.Object({ apiKey: Secret(), webhookSecret: Secret({ description: "signs the gateway's events" }) }),
})

const event = defineTrigger({
  type: 'paygateway-event',
  name: 'Gateway event',
  description: 'The gateway sends an event (payment, refund, dispute, payout …); optionally only some event types.',
  tags: ['payments', 'paygateway'],
  platform: 'paygateway',
  connector: { type: 'paygateway' },
  payload: Type.Object({
    eventTypes: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { description: 'e.g. payment.captured; default all' }),
    ),
  }),
  result: TriggerEvent(
    Type.Object({
      id: Type.String(),
      type: Type.String(),
      createdAt: Type.String({ format: 'date-time' }),
      data: Type.Record(Type.String(), Type.Any()),
    }),
  ),
  waitPayload: Type.Object({ type: Type.Optional(Type.String()), 'data.id': Type.Optional(Type.String()) }),
  matches: (config, { body }) => !config.eventTypes?.length || config.eventTypes.includes(body.type),
})

export default definePlugin({
  id: 'paygateway',
  name: 'Payment gateway',
  version: '1.0.0',
  connector,
  triggers: [event],
})
