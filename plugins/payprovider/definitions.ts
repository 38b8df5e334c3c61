/** The payment provider's connector (the signing secret of its webhooks) and its payment trigger. */
import { defineConnector, defineTrigger, Secret, TriggerEvent, Type } from '../../core/plugin/sdk.ts'

export const connector = defineConnector({
  type: 'payprovider',
  name: 'Payment provider',
  description:
    'An account of the payment provider: the signing secret of the webhook endpoint pointed at this organization.',
  provider: 'Payment provider',
  tags: ['payments'],
  data: Type.Object({ signingSecret: Secret({ description: "whsec_…, from the provider's webhook settings" }) }),
})

/** The event types that mean "money arrived". */
export const PAYMENT_EVENTS = ['payment_intent.succeeded', 'charge.succeeded']

const Payment = Type.Object(
  {
    id: Type.String(),
    amount: Type.Integer({ minimum: 0, description: 'in the smallest unit of the currency' }),
    currency: Type.String({ minLength: 3, maxLength: 3 }),
    customer: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: true },
)

export const paymentReceive = defineTrigger({
  type: 'payprovider-payment-receive',
  name: 'Payment received',
  description:
    'A payment succeeds (payment_intent.succeeded or charge.succeeded), optionally at least an amount in a currency.',
  tags: ['payments', 'payprovider'],
  platform: 'payprovider',
  connector: { type: 'payprovider' },
  payload: Type.Object({
    minAmount: Type.Optional(Type.Integer({ minimum: 0 })),
    currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
  }),
  result: TriggerEvent(
    Type.Object({
      id: Type.String({ description: "the provider's event id" }),
      type: Type.String(),
      created: Type.Integer({ description: 'Unix seconds' }),
      data: Type.Object({ object: Payment }),
    }),
  ),
  waitPayload: Type.Object({
    'data.object.id': Type.Optional(Type.String()),
    'data.object.metadata.orderId': Type.Optional(Type.String()),
  }),
  matches: (config, { body }) =>
    PAYMENT_EVENTS.includes(body.type) &&
    body.data.object.amount >= (config.minAmount ?? 0) &&
    (config.currency === undefined || body.data.object.currency.toLowerCase() === config.currency.toLowerCase()),
})
