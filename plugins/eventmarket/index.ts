/** Prediction market B (`eventmarket`): event contracts' trades, new and closed markets. Public data, no connector. Catalog only until its integration arrives. */
import { definePlugin, defineTrigger, TriggerEvent, Type } from '../../core/plugin/sdk.ts'

const common = {
  tags: ['prediction-market', 'eventmarket'],
  platform: 'eventmarket',
  connector: null,
  waitPayload: Type.Object({ ticker: Type.Optional(Type.String()) }),
} as const

const marketTrade = defineTrigger({
  ...common,
  type: 'eventmarket-market-trade',
  name: 'Market trade',
  description: "A trade of a market's contracts (at least a count).",
  payload: Type.Object({
    ticker: Type.String({ minLength: 1 }),
    minCount: Type.Optional(Type.Integer({ minimum: 1 })),
  }),
  result: TriggerEvent(
    Type.Object({
      tradeId: Type.String(),
      ticker: Type.String(),
      takerSide: Type.Union([Type.Literal('yes'), Type.Literal('no')]),
      count: Type.Integer({ minimum: 1 }),
      yesPrice: Type.Integer({ minimum: 0, maximum: 100, description: 'cents' }),
      noPrice: Type.Integer({ minimum: 0, maximum: 100 }),
      at: Type.String({ format: 'date-time' }),
    }),
  ),
  matches: (config, { body }) => body.ticker === config.ticker && body.count >= (config.minCount ?? 1),
})

const newMarket = defineTrigger({
  ...common,
  type: 'eventmarket-new-market',
  name: 'New market',
  description: 'A market opens (optionally in a series).',
  payload: Type.Object({
    seriesTicker: Type.Optional(Type.String({ minLength: 1 })),
    keyword: Type.Optional(Type.String({ minLength: 1 })),
  }),
  result: TriggerEvent(
    Type.Object({
      ticker: Type.String(),
      seriesTicker: Type.String(),
      title: Type.String(),
      openTime: Type.String({ format: 'date-time' }),
      closeTime: Type.String({ format: 'date-time' }),
    }),
  ),
  matches: (config, { body }) =>
    (config.seriesTicker === undefined || body.seriesTicker === config.seriesTicker) &&
    (config.keyword === undefined || body.title.toLowerCase().includes(config.keyword.toLowerCase())),
})

const marketClose = defineTrigger({
  ...common,
  type: 'eventmarket-market-close',
  name: 'Market closed',
  description: 'A market closes and settles.',
  payload: Type.Object({
    ticker: Type.Optional(Type.String({ minLength: 1 })),
    seriesTicker: Type.Optional(Type.String({ minLength: 1 })),
  }),
  result: TriggerEvent(
    Type.Object({
      ticker: Type.String(),
      seriesTicker: Type.String(),
      result: Type.Union([Type.Literal('yes'), Type.Literal('no'), Type.Literal('void')]),
      closedAt: Type.String({ format: 'date-time' }),
    }),
  ),
  matches: (config, { body }) =>
    (config.ticker === undefined || body.ticker === config.ticker) &&
    (config.seriesTicker === undefined || body.seriesTicker === config.seriesTicker),
})

export default definePlugin({
  id: 'eventmarket',
  name: 'Prediction market B',
  version: '1.0.0',
  triggers: [marketTrade, newMarket, marketClose],
})
