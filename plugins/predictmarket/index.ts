/** Prediction market A (`predictmarket`): bets, trades, new and closed markets. Public data, no connector. Catalog only until its integration arrives. */
import { definePlugin, defineTrigger, TriggerEvent, Type } from '../../core/plugin/sdk.ts'

const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' })
const Side = Type.Union([Type.Literal('buy'), Type.Literal('sell')])
const Trade = Type.Object({
  marketId: Type.String(),
  marketSlug: Type.Optional(Type.String()),
  outcome: Type.String({ description: 'e.g. Yes' }),
  side: Side,
  size: Type.Number({ minimum: 0, description: 'shares' }),
  price: Type.Number({ minimum: 0, maximum: 1 }),
  user: Address,
  transactionHash: Type.Optional(Type.String()),
  at: Type.String({ format: 'date-time' }),
})
const common = {
  tags: ['prediction-market', 'predictmarket'],
  platform: 'predictmarket',
  connector: null,
  waitPayload: Type.Object({ marketId: Type.Optional(Type.String()) }),
} as const
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

const userBet = defineTrigger({
  ...common,
  type: 'predictmarket-user-bet',
  name: 'User bet',
  description: 'A given wallet buys or sells shares in any market.',
  payload: Type.Object({ user: Address, minSize: Type.Optional(Type.Number({ minimum: 0 })) }),
  result: TriggerEvent(Trade),
  matches: (config, { body }) => same(body.user, config.user) && body.size >= (config.minSize ?? 0),
})

const marketTrade = defineTrigger({
  ...common,
  type: 'predictmarket-market-trade',
  name: 'Market trade',
  description: 'A trade happens in a market (at least a size).',
  payload: Type.Object({
    marketId: Type.String({ minLength: 1 }),
    minSize: Type.Optional(Type.Number({ minimum: 0 })),
  }),
  result: TriggerEvent(Trade),
  matches: (config, { body }) => body.marketId === config.marketId && body.size >= (config.minSize ?? 0),
})

const newMarket = defineTrigger({
  ...common,
  type: 'predictmarket-new-market',
  name: 'New market',
  description: 'A market opens (optionally with a tag or a keyword in its question).',
  payload: Type.Object({
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    keyword: Type.Optional(Type.String({ minLength: 1 })),
  }),
  result: TriggerEvent(
    Type.Object({
      marketId: Type.String(),
      question: Type.String(),
      slug: Type.String(),
      tags: Type.Array(Type.String()),
      outcomes: Type.Array(Type.String()),
      endDate: Type.Optional(Type.String({ format: 'date-time' })),
      createdAt: Type.String({ format: 'date-time' }),
    }),
  ),
  matches: (config, { body }) =>
    (!config.tags?.length || config.tags.some((t) => body.tags.includes(t))) &&
    (config.keyword === undefined || body.question.toLowerCase().includes(config.keyword.toLowerCase())),
})

const marketClose = defineTrigger({
  ...common,
  type: 'predictmarket-market-close',
  name: 'Market closed',
  description: 'A market closes and resolves.',
  payload: Type.Object({ marketId: Type.Optional(Type.String({ minLength: 1, description: 'default any market' })) }),
  result: TriggerEvent(
    Type.Object({
      marketId: Type.String(),
      question: Type.String(),
      winningOutcome: Type.Optional(Type.String()),
      closedAt: Type.String({ format: 'date-time' }),
    }),
  ),
  matches: (config, { body }) => config.marketId === undefined || body.marketId === config.marketId,
})

export default definePlugin({
  id: 'predictmarket',
  name: 'Prediction market A',
  version: '1.0.0',
  triggers: [userBet, marketTrade, newMarket, marketClose],
})
