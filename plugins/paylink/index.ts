/** The third payment platform (`paylink`): payment links and hosted checkouts, in crypto or fiat. Catalog only until its integration arrives. */
import { defineConnector, definePlugin, defineTrigger, Secret, TriggerEvent, Type } from '../../core/plugin/sdk.ts'

const connector = defineConnector({
  type: 'paylink',
  name: 'Payment links',
  description: 'An account of the payment-link platform.',
  provider: 'Payment-link platform',
  tags: ['payments'],
  data: Type.Object({ apiKey: Secret(), webhookSecret: Type.Optional(Secret()) }),
})

const Amount = Type.String({ pattern: '^[0-9]+$', description: 'in the smallest unit of the asset' })
const common = { tags: ['payments', 'paylink'], platform: 'paylink', connector: { type: 'paylink' } } as const

const paymentReceived = defineTrigger({
  ...common,
  type: 'paylink-payment-received',
  name: 'Payment received',
  description: 'A payment link is paid.',
  payload: Type.Object({
    linkId: Type.Optional(Type.String({ minLength: 1, description: 'only this link' })),
    minAmount: Type.Optional(Amount),
  }),
  result: TriggerEvent(
    Type.Object({
      paymentId: Type.String(),
      linkId: Type.String(),
      amount: Amount,
      asset: Type.String({ description: 'currency code or token symbol' }),
      chainId: Type.Optional(Type.Integer()),
      payer: Type.Optional(Type.String()),
      transactionHash: Type.Optional(Type.String()),
      paidAt: Type.String({ format: 'date-time' }),
    }),
  ),
  waitPayload: Type.Object({ paymentId: Type.Optional(Type.String()), linkId: Type.Optional(Type.String()) }),
  matches: (config, { body }) =>
    (config.linkId === undefined || body.linkId === config.linkId) &&
    (config.minAmount === undefined || BigInt(body.amount) >= BigInt(config.minAmount)),
})

const checkoutReceived = defineTrigger({
  ...common,
  type: 'paylink-checkout-received',
  name: 'Checkout completed',
  description: 'A customer completes a hosted checkout.',
  payload: Type.Object({ productId: Type.Optional(Type.String({ minLength: 1 })) }),
  result: TriggerEvent(
    Type.Object({
      checkoutId: Type.String(),
      email: Type.Optional(Type.String()),
      amount: Amount,
      asset: Type.String(),
      items: Type.Array(
        Type.Object({ productId: Type.String(), name: Type.String(), quantity: Type.Integer({ minimum: 1 }) }),
      ),
      metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
      completedAt: Type.String({ format: 'date-time' }),
    }),
  ),
  waitPayload: Type.Object({ checkoutId: Type.Optional(Type.String()) }),
  matches: (config, { body }) =>
    config.productId === undefined || body.items.some((i) => i.productId === config.productId),
})

export default definePlugin({
  id: 'paylink',
  name: 'Payment links',
  version: '1.0.0',
  connector,
  triggers: [paymentReceived, checkoutReceived],
})
