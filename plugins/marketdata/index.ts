/** The market data provider (`marketdata`): options flow alerts and market news. Catalog only until its integration arrives. */
import { defineConnector, definePlugin, defineTrigger, Secret, TriggerEvent, Type } from '../../core/plugin/sdk.ts'

const connector = defineConnector({
  type: 'marketdata',
  name: 'Market data API',
  description: 'An API key of the market data provider.',
  provider: 'Market data provider',
  tags: ['markets'],
  data: Type.Object({ apiKey: Secret() }),
})

const Tickers = Type.Optional(
  Type.Array(Type.String({ minLength: 1, maxLength: 12 }), { description: 'only these tickers; default all' }),
)
const upper = (list: readonly string[] | undefined) => list?.map((t) => t.toUpperCase())
const common = { tags: ['markets', 'marketdata'], platform: 'marketdata', connector: { type: 'marketdata' } } as const

const optionsFlowAlerts = defineTrigger({
  ...common,
  type: 'marketdata-options-flow-alerts',
  name: 'Options flow alert',
  description: 'An unusual options trade (sweep, block) is reported: by ticker, premium and sentiment.',
  payload: Type.Object({
    tickers: Tickers,
    minPremium: Type.Optional(Type.Number({ minimum: 0, description: 'in USD' })),
    sentiment: Type.Optional(Type.Union([Type.Literal('bullish'), Type.Literal('bearish')])),
  }),
  result: TriggerEvent(
    Type.Object({
      id: Type.String(),
      ticker: Type.String(),
      optionType: Type.Union([Type.Literal('call'), Type.Literal('put')]),
      strike: Type.Number(),
      expiry: Type.String({ format: 'date' }),
      premium: Type.Number(),
      size: Type.Integer(),
      sentiment: Type.Union([Type.Literal('bullish'), Type.Literal('bearish'), Type.Literal('neutral')]),
      at: Type.String({ format: 'date-time' }),
    }),
  ),
  waitPayload: Type.Object({ ticker: Type.Optional(Type.String()) }),
  matches: (config, { body }) =>
    (!config.tickers?.length || upper(config.tickers)!.includes(body.ticker.toUpperCase())) &&
    body.premium >= (config.minPremium ?? 0) &&
    (config.sentiment === undefined || body.sentiment === config.sentiment),
})

const marketNews = defineTrigger({
  ...common,
  type: 'marketdata-market-news',
  name: 'Market news',
  description: 'A news item is published: about given tickers, or with a keyword in its headline.',
  payload: Type.Object({ tickers: Tickers, keywords: Type.Optional(Type.Array(Type.String({ minLength: 1 }))) }),
  result: TriggerEvent(
    Type.Object({
      id: Type.String(),
      headline: Type.String(),
      summary: Type.Optional(Type.String()),
      source: Type.String(),
      url: Type.String(),
      tickers: Type.Array(Type.String()),
      publishedAt: Type.String({ format: 'date-time' }),
    }),
  ),
  waitPayload: Type.Object({ id: Type.Optional(Type.String()) }),
  matches: (config, { body }) =>
    (!config.tickers?.length || body.tickers.some((t) => upper(config.tickers)!.includes(t.toUpperCase()))) &&
    (!config.keywords?.length || config.keywords.some((k) => body.headline.toLowerCase().includes(k.toLowerCase()))),
})

export default definePlugin({
  id: 'marketdata',
  name: 'Market data',
  version: '1.0.0',
  connector,
  triggers: [optionsFlowAlerts, marketNews],
})
