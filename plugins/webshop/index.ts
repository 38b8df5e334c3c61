/** The web shop platform (`webshop`): orders and inventory. Catalog only until its integration arrives. */
import { defineConnector, definePlugin, defineTrigger, Secret, TriggerEvent, Type } from '../../core/plugin/sdk.ts'

const connector = defineConnector({
  type: 'webshop',
  name: 'Web shop',
  description:
    'A shop of the web shop platform: its domain, an admin API token and the secret that signs its webhooks.',
  provider: 'Web shop platform',
  tags: ['commerce'],
  data: Type.Object({
    shopDomain: Type.String({ minLength: 1, description: 'e.g. acme.shop.example' }),
    accessToken: Secret({ description: 'admin API access token' }),
    webhookSecret: Type.Optional(Secret({ description: "signs the shop's webhooks" })),
  }),
})

const Money = Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'a decimal amount in the shop currency' })
const Order = Type.Object({
  orderId: Type.String(),
  orderNumber: Type.Integer(),
  email: Type.Optional(Type.String()),
  currency: Type.String({ minLength: 3, maxLength: 3 }),
  totalPrice: Money,
  financialStatus: Type.String({ description: 'pending, paid, refunded …' }),
  lineItems: Type.Array(
    Type.Object({
      sku: Type.Optional(Type.String()),
      title: Type.String(),
      quantity: Type.Integer({ minimum: 1 }),
      price: Money,
    }),
  ),
  createdAt: Type.String({ format: 'date-time' }),
})
const OrderConfig = Type.Object({
  minTotal: Type.Optional(Money),
  sku: Type.Optional(Type.String({ minLength: 1, description: 'only orders with this SKU' })),
})
const orderMatches = (
  config: { minTotal?: string; sku?: string },
  order: { totalPrice: string; lineItems: { sku?: string }[] },
) =>
  (config.minTotal === undefined || Number(order.totalPrice) >= Number(config.minTotal)) &&
  (config.sku === undefined || order.lineItems.some((i) => i.sku === config.sku))
const common = { tags: ['commerce', 'webshop'], platform: 'webshop', connector: { type: 'webshop' } } as const
const OrderWait = Type.Object({ orderId: Type.Optional(Type.String()), email: Type.Optional(Type.String()) })

const orderCreated = defineTrigger({
  ...common,
  type: 'webshop-order-created',
  name: 'Order created',
  description: 'A customer places an order.',
  payload: OrderConfig,
  result: TriggerEvent(Order),
  waitPayload: OrderWait,
  matches: (config, { body }) => orderMatches(config, body),
})

const orderPaid = defineTrigger({
  ...common,
  type: 'webshop-order-paid',
  name: 'Order paid',
  description: 'An order is paid in full.',
  payload: OrderConfig,
  result: TriggerEvent(Order),
  waitPayload: OrderWait,
  matches: (config, { body }) => orderMatches(config, body),
})

const inventoryLevelUpdated = defineTrigger({
  ...common,
  type: 'webshop-inventory-level-updated',
  name: 'Inventory level updated',
  description: 'The stock of an item at a location changes (optionally: falls below a level).',
  payload: Type.Object({
    inventoryItemIds: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    locationIds: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    below: Type.Optional(Type.Integer({ description: 'only when fewer than this are available' })),
  }),
  result: TriggerEvent(
    Type.Object({
      inventoryItemId: Type.String(),
      locationId: Type.String(),
      available: Type.Integer(),
      updatedAt: Type.String({ format: 'date-time' }),
    }),
  ),
  waitPayload: Type.Object({ inventoryItemId: Type.Optional(Type.String()) }),
  matches: (config, { body }) =>
    (!config.inventoryItemIds?.length || config.inventoryItemIds.includes(body.inventoryItemId)) &&
    (!config.locationIds?.length || config.locationIds.includes(body.locationId)) &&
    (config.below === undefined || body.available < config.below),
})

export default definePlugin({
  id: 'webshop',
  name: 'Web shop',
  version: '1.0.0',
  connector,
  triggers: [orderCreated, orderPaid, inventoryLevelUpdated],
})
