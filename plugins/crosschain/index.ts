/**
 * The cross-chain payment service (`crosschain`): an order completed. Its callback,
 * POST /v1/internal/crosschain/order-completed (x-api-key = AUTOMATON_CROSSCHAIN_API_KEY), is
 * in webhook.ts: clientReferenceId names the workflow to start or the run to resume.
 */
import { definePlugin, defineTrigger, TriggerEvent, Type } from '../../core/plugin/sdk.ts'
import { orderCompleted } from './webhook.ts'

const crosschain = defineTrigger({
  type: 'crosschain',
  name: 'Cross-chain order completed',
  description:
    'The cross-chain payment service completes an order whose clientReferenceId names this workflow (or a run waiting for it).',
  tags: ['payments', 'crosschain'],
  platform: 'crosschain',
  connector: null,
  payload: Type.Object({
    statuses: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { description: 'only orders with these statuses; default all' }),
    ),
  }),
  result: TriggerEvent(
    Type.Object({
      orderId: Type.String(),
      clientReferenceId: Type.String(),
      event: Type.String(),
      status: Type.String(),
      txHash: Type.String(),
      callbackMetadata: Type.Optional(Type.Record(Type.String(), Type.Any())),
      payment: Type.Object({
        dstAmount: Type.String({ description: 'in the smallest unit' }),
        dstChain: Type.Integer(),
        dstTokenAddress: Type.String(),
        dstTokenDecimals: Type.Integer({ minimum: 0 }),
        dstTokenSymbol: Type.String(),
        recipientAddress: Type.String(),
      }),
    }),
  ),
  waitPayload: Type.Object({ orderId: Type.Optional(Type.String()), clientReferenceId: Type.Optional(Type.String()) }),
  matches: (config, { body }) => !config.statuses?.length || config.statuses.includes(body.status),
})

export default definePlugin({
  id: 'crosschain',
  name: 'Cross-chain payments',
  version: '1.0.0',
  triggers: [crosschain],
  webhooks: [orderCompleted],
})
