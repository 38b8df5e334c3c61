/** The perpetuals exchange (`perpdex`): prices, trades, fills, liquidations, positions, transfers. Public data, no connector. Catalog only until its integration arrives. */
import { definePlugin, defineTrigger, TriggerEvent, Type } from '../../core/plugin/sdk.ts'

const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' })
const Coin = Type.String({ minLength: 1, maxLength: 20, description: 'e.g. BTC' })
const Side = Type.Union([Type.Literal('buy'), Type.Literal('sell')])
const Time = Type.String({ format: 'date-time' })
const common = { tags: ['perpetuals', 'perpdex'], platform: 'perpdex', connector: null } as const
const same = (a: string | undefined, b: string | undefined) =>
  a === undefined || b === undefined || a.toLowerCase() === b.toLowerCase()

const priceAlert = defineTrigger({
  ...common,
  type: 'perpdex-price-alert',
  name: 'Price alert',
  description: "A coin's mark price goes above or below a level.",
  payload: Type.Object(
    {
      coin: Coin,
      above: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
      below: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    },
    { minProperties: 2 },
  ),
  result: TriggerEvent(Type.Object({ coin: Coin, price: Type.Number(), at: Time })),
  waitPayload: Type.Object({ coin: Type.Optional(Coin) }),
  matches: (config, { body }) =>
    same(body.coin, config.coin) &&
    (config.above === undefined || body.price >= config.above) &&
    (config.below === undefined || body.price <= config.below),
})

const trade = defineTrigger({
  ...common,
  type: 'perpdex-trade',
  name: 'Trade',
  description: 'A trade of a coin (optionally at least a size).',
  payload: Type.Object({ coin: Coin, minSize: Type.Optional(Type.Number({ minimum: 0 })) }),
  result: TriggerEvent(
    Type.Object({
      tradeId: Type.String(),
      coin: Coin,
      side: Side,
      price: Type.Number(),
      size: Type.Number(),
      at: Time,
    }),
  ),
  waitPayload: Type.Object({ coin: Type.Optional(Coin) }),
  matches: (config, { body }) => same(body.coin, config.coin) && body.size >= (config.minSize ?? 0),
})

const userFill = defineTrigger({
  ...common,
  type: 'perpdex-user-fill',
  name: 'User fill',
  description: 'An order of a wallet is filled.',
  payload: Type.Object({ user: Address, coin: Type.Optional(Coin) }),
  result: TriggerEvent(
    Type.Object({
      user: Address,
      coin: Coin,
      side: Side,
      price: Type.Number(),
      size: Type.Number(),
      fee: Type.Number(),
      orderId: Type.String(),
      closedPnl: Type.Optional(Type.Number()),
      at: Time,
    }),
  ),
  waitPayload: Type.Object({ orderId: Type.Optional(Type.String()) }),
  matches: (config, { body }) => same(body.user, config.user) && same(body.coin, config.coin),
})

const liquidation = defineTrigger({
  ...common,
  type: 'perpdex-liquidation',
  name: 'Liquidation',
  description: 'A position is liquidated (any, of a coin, or of a wallet).',
  payload: Type.Object({
    coin: Type.Optional(Coin),
    user: Type.Optional(Address),
    minNotional: Type.Optional(Type.Number({ minimum: 0 })),
  }),
  result: TriggerEvent(
    Type.Object({
      user: Address,
      coin: Coin,
      side: Side,
      size: Type.Number(),
      price: Type.Number(),
      notional: Type.Number(),
      at: Time,
    }),
  ),
  waitPayload: Type.Object({ user: Type.Optional(Address) }),
  matches: (config, { body }) =>
    same(body.coin, config.coin) && same(body.user, config.user) && body.notional >= (config.minNotional ?? 0),
})

const positionChange = defineTrigger({
  ...common,
  type: 'perpdex-position-change',
  name: 'Position change',
  description: "A wallet's position in a coin opens, grows, shrinks or closes.",
  payload: Type.Object({ user: Address, coin: Type.Optional(Coin) }),
  result: TriggerEvent(
    Type.Object({
      user: Address,
      coin: Coin,
      previousSize: Type.Number(),
      size: Type.Number({ description: 'signed: negative is short' }),
      entryPrice: Type.Optional(Type.Number()),
      unrealizedPnl: Type.Optional(Type.Number()),
      at: Time,
    }),
  ),
  waitPayload: Type.Object({ coin: Type.Optional(Coin) }),
  matches: (config, { body }) => same(body.user, config.user) && same(body.coin, config.coin),
})

const transfer = defineTrigger({
  ...common,
  type: 'perpdex-transfer',
  name: 'Transfer',
  description: 'A wallet deposits, withdraws or transfers funds on the exchange.',
  payload: Type.Object({
    user: Address,
    directions: Type.Optional(
      Type.Array(Type.Union([Type.Literal('deposit'), Type.Literal('withdrawal'), Type.Literal('transfer')])),
    ),
  }),
  result: TriggerEvent(
    Type.Object({
      user: Address,
      direction: Type.Union([Type.Literal('deposit'), Type.Literal('withdrawal'), Type.Literal('transfer')]),
      amount: Type.String({ description: 'decimal amount of the token' }),
      token: Type.String(),
      transactionHash: Type.Optional(Type.String()),
      at: Time,
    }),
  ),
  waitPayload: Type.Object({ transactionHash: Type.Optional(Type.String()) }),
  matches: (config, { body }) =>
    same(body.user, config.user) && (!config.directions?.length || config.directions.includes(body.direction)),
})

export default definePlugin({
  id: 'perpdex',
  name: 'Perpetuals exchange',
  version: '1.0.0',
  triggers: [priceAlert, trade, userFill, liquidation, positionChange, transfer],
})
