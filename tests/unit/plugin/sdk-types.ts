/**
 * Type tests of the SDK, checked by tsc (`npm run typecheck`), never run: handler contexts are
 * typed from the schemas, and connector data from the connector definition an action names.
 */
import {
  defineAction,
  defineConnector,
  definePlugin,
  defineTrigger,
  defineWebhook,
  Secret,
  type Sdk,
  TriggerEvent,
  Type,
} from '../../../core/plugin/sdk.ts'

const weather = defineConnector({
  type: 'weather',
  name: 'Weather',
  description: '',
  provider: 'p',
  data: Type.Object({ apiKey: Secret(), units: Type.Optional(Type.String()) }),
})

export const typedAction = defineAction({
  type: 'weather-now',
  name: 'Now',
  description: '',
  connector: weather,
  payload: Type.Object({ city: Type.String() }),
  result: Type.Object({ celsius: Type.Number() }),
  run(ctx) {
    // Declared, so never null: no `!` needed.
    const key: string = ctx.connector.apiKey
    const units: string | undefined = ctx.connector.units
    // @ts-expect-error the key is a string
    const wrong: number = ctx.connector.apiKey
    // @ts-expect-error not a field of the connector data
    void ctx.connector.password
    // @ts-expect-error the payload's city is a string
    const city: number = ctx.payload.city
    void key, units, wrong, city
    return { celsius: 1 }
  },
})

export const untypedConnector = defineAction({
  type: 'weather-any',
  name: 'Any',
  description: '',
  connector: { type: 'weather' },
  payload: Type.Object({}),
  result: Type.Object({}),
  run(ctx) {
    const value: unknown = ctx.connector.anything
    void value
    return {}
  },
})

export const noConnector = defineAction({
  type: 'weather-none',
  name: 'None',
  description: '',
  payload: Type.Object({}),
  result: Type.Object({}),
  run(ctx) {
    // @ts-expect-error an action that declares no connector has none
    void ctx.connector.anything
    return {}
  },
})

export const wrongResult = defineAction({
  type: 'weather-bad',
  name: 'Bad',
  description: '',
  payload: Type.Object({}),
  result: Type.Object({ n: Type.Number() }),
  // @ts-expect-error the result must match its schema
  run: () => ({ n: 'one' }),
})

export const branching = defineAction({
  type: 'weather-branch',
  name: 'Branch',
  description: '',
  payload: Type.Object({}),
  result: Type.Object({}),
  branches: ['a', 'b'],
  run: (ctx) => ctx.branch('a', {}),
})

export const typedTrigger = defineTrigger({
  type: 'weather-alert',
  name: 'Alert',
  description: '',
  payload: Type.Object({ city: Type.String() }),
  result: TriggerEvent(Type.Object({ city: Type.String(), level: Type.Integer() })),
  waitPayload: Type.Object({ level: Type.Optional(Type.Integer()) }),
  matches: (config, event) => {
    // @ts-expect-error the body's level is a number
    const level: string = event.body.level
    void level
    return event.body.city === config.city
  },
  matchesWait: (match, event) => match.level === undefined || match.level === event.body.level,
})

export const typedWebhook = defineWebhook({
  name: 'alerts',
  description: '',
  path: '/v1/orgs/:orgId/integrations/weather',
  auth: { kind: 'connector', connector: weather },
  verify: (request, ctx) => {
    const key: string | undefined = ctx.connector?.apiKey
    const raw: string = request.rawBody
    void key, raw
    return { ok: false, status: 401, reason: 'no' }
  },
  // @ts-expect-error an event needs an eventId
  receive: () => ({ events: [{ triggerType: 'weather-alert', body: {} }] }),
})

/** An external plugin module: a function of the SDK, needing no import of the host at run time. */
export const external = ({ definePlugin: plugin, defineAction: action, Type: T }: Sdk) =>
  plugin({
    id: 'ext',
    actions: [
      action({
        type: 'ext-x',
        name: 'x',
        description: '',
        payload: T.Object({}),
        result: T.Object({}),
        run: () => ({}),
      }),
    ],
  })

export const plugin = definePlugin({
  id: 'weather',
  connector: weather,
  actions: [typedAction, untypedConnector, branching],
  triggers: [typedTrigger],
  webhooks: [typedWebhook],
})
