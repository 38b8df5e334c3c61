import { defineTrigger, TriggerEvent, Type } from '../../../core/plugin/sdk.ts'

const Market = Type.Union([Type.Literal('spot'), Type.Literal('futures')])
const lower = (values: readonly string[] | undefined) => values?.map((v) => v.toLowerCase())

/** An exchange announces a new listing. */
export const exchangeListing = defineTrigger({
  type: 'exchange-listing',
  name: 'Exchange listing',
  description: 'A centralized exchange announces that it lists a token (spot or futures).',
  tags: ['generic', 'markets', 'listing'],
  platform: 'cex',
  connector: null,
  payload: Type.Object({
    exchanges: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'default all' })),
    symbols: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'default any' })),
    market: Type.Optional(Market),
  }),
  result: TriggerEvent(
    Type.Object({
      exchange: Type.String(),
      symbol: Type.String(),
      name: Type.Optional(Type.String()),
      market: Market,
      announcementUrl: Type.Optional(Type.String()),
      listedAt: Type.String({ format: 'date-time' }),
    }),
  ),
  waitPayload: Type.Object({ exchange: Type.Optional(Type.String()), symbol: Type.Optional(Type.String()) }),
  matches: (config, { body }) =>
    (!config.exchanges?.length || lower(config.exchanges)!.includes(body.exchange.toLowerCase())) &&
    (!config.symbols?.length || lower(config.symbols)!.includes(body.symbol.toLowerCase())) &&
    (config.market === undefined || config.market === body.market),
})
