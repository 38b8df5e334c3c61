/** The spend management platform (`spendapp`): card transactions and transfers. Catalog only until its integration arrives. */
import { defineConnector, definePlugin, defineTrigger, Secret, TriggerEvent, Type } from '../../core/plugin/sdk.ts'

const connector = defineConnector({
  type: 'spendapp',
  name: 'Spend management account',
  description: 'A company account of the spend management platform.',
  provider: 'Spend management platform',
  tags: ['finance'],
  data: Type.Object({ apiToken: Secret(), webhookSecret: Type.Optional(Secret()) }),
})

const Amount = Type.String({ pattern: '^-?[0-9]+$', description: 'in the smallest unit of the currency (cents)' })
const Transaction = Type.Object({
  transactionId: Type.String(),
  amount: Amount,
  currency: Type.String({ minLength: 3, maxLength: 3 }),
  merchant: Type.String(),
  category: Type.Optional(Type.String()),
  cardId: Type.Optional(Type.String()),
  userId: Type.Optional(Type.String()),
  status: Type.String({ description: 'pending, cleared, declined …' }),
  createdAt: Type.String({ format: 'date-time' }),
})
const Statuses = Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'only these statuses' }))
const common = { tags: ['finance', 'spendapp'], platform: 'spendapp', connector: { type: 'spendapp' } } as const
const TxWait = Type.Object({ transactionId: Type.Optional(Type.String()) })

const newTransaction = defineTrigger({
  ...common,
  type: 'spendapp-new-transaction',
  name: 'New transaction',
  description: 'A card is charged (optionally at least an amount, on given cards).',
  payload: Type.Object({
    minAmount: Type.Optional(Amount),
    cardIds: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  }),
  result: TriggerEvent(Transaction),
  waitPayload: TxWait,
  matches: (config, { body }) =>
    (config.minAmount === undefined || BigInt(body.amount) >= BigInt(config.minAmount)) &&
    (!config.cardIds?.length || (body.cardId !== undefined && config.cardIds.includes(body.cardId))),
})

const transactionStatusUpdated = defineTrigger({
  ...common,
  type: 'spendapp-transaction-status-updated',
  name: 'Transaction status updated',
  description: 'A transaction changes status (cleared, declined, disputed …).',
  payload: Type.Object({ statuses: Statuses }),
  result: TriggerEvent(Type.Composite([Transaction, Type.Object({ previousStatus: Type.String() })])),
  waitPayload: TxWait,
  matches: (config, { body }) => !config.statuses?.length || config.statuses.includes(body.status),
})

const transferPaymentUpdated = defineTrigger({
  ...common,
  type: 'spendapp-transfer-payment-updated',
  name: 'Transfer updated',
  description: 'A bank transfer or bill payment changes status.',
  payload: Type.Object({ statuses: Statuses }),
  result: TriggerEvent(
    Type.Object({
      transferId: Type.String(),
      amount: Amount,
      currency: Type.String(),
      counterparty: Type.String(),
      status: Type.String(),
      previousStatus: Type.Optional(Type.String()),
      updatedAt: Type.String({ format: 'date-time' }),
    }),
  ),
  waitPayload: Type.Object({ transferId: Type.Optional(Type.String()) }),
  matches: (config, { body }) => !config.statuses?.length || config.statuses.includes(body.status),
})

export default definePlugin({
  id: 'spendapp',
  name: 'Spend management',
  version: '1.0.0',
  connector,
  triggers: [newTransaction, transactionStatusUpdated, transferPaymentUpdated],
})
