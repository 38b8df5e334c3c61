import { defineTrigger, TriggerEvent, Type } from '../../../core/plugin/sdk.ts'

const same = (a: string, b: string) => a.toUpperCase() === b.toUpperCase()

/** A token's price on centralized exchanges crosses a threshold or moves by a percentage. */
export const tokenPriceCexes = defineTrigger({
  type: 'token-price-cexes',
  name: 'Token price on exchanges',
  description:
    "A token's price on centralized exchanges goes above or below a level, or moves at least a percentage in 24 hours.",
  tags: ['generic', 'markets', 'price'],
  platform: 'cex',
  connector: null,
  payload: Type.Object({
    symbol: Type.String({ minLength: 1, maxLength: 20, description: 'base asset, e.g. BTC' }),
    quote: Type.Optional(Type.String({ minLength: 1, maxLength: 20, default: 'USDT' })),
    exchanges: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { description: 'only these exchanges; default all' }),
    ),
    above: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    below: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    changePercent: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'absolute 24 h change, in percent' })),
  }),
  result: TriggerEvent(
    Type.Object({
      symbol: Type.String(),
      quote: Type.String(),
      exchange: Type.String(),
      price: Type.Number(),
      change24hPercent: Type.Optional(Type.Number()),
      at: Type.String({ format: 'date-time' }),
    }),
  ),
  waitPayload: Type.Object({ symbol: Type.Optional(Type.String()), exchange: Type.Optional(Type.String()) }),
  matches(config, { body }) {
    if (!same(body.symbol, config.symbol) || !same(body.quote, config.quote ?? 'USDT')) return false
    if (config.exchanges?.length && !config.exchanges.some((e) => same(e, body.exchange))) return false
    if (config.above !== undefined && !(body.price >= config.above)) return false
    if (config.below !== undefined && !(body.price <= config.below)) return false
    if (config.changePercent !== undefined && !(Math.abs(body.change24hPercent ?? 0) >= config.changePercent))
      return false
    return true
  },
})
