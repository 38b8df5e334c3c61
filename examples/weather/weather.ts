/**
 * An example plugin: a weather service with a connector (its address and API key), a trigger
 * (alerts), an action (the current temperature) and an integration webhook (signed alerts the
 * service pushes). One ESM file with no import of Automaton at run time: the default export
 * receives the SDK. The `import type` only gives the editor and tsc the types; it is erased.
 *
 * Load it with AUTOMATON_PLUGINS_DIR pointing at this folder; its tests are weather.test.ts.
 */
import type { Sdk } from 'automaton/sdk'

export default ({
  definePlugin,
  defineConnector,
  defineTrigger,
  defineAction,
  defineWebhook,
  Type,
  Secret,
  TriggerEvent,
}: Sdk) => {
  const LEVELS = ['yellow', 'orange', 'red'] as const
  const Level = Type.Union(LEVELS.map((l) => Type.Literal(l)))
  const rank = (level: string) => LEVELS.indexOf(level as (typeof LEVELS)[number])

  const connector = defineConnector({
    type: 'weather',
    name: 'Weather service',
    description: 'An account of the weather service: its address and API key.',
    provider: 'Example Weather',
    data: Type.Object({
      baseUrl: Type.String({ minLength: 1, description: 'e.g. https://api.weather.example' }),
      apiKey: Secret({ description: 'sent as a bearer token' }),
      webhookSecret: Type.Optional(Secret({ description: 'signs the alerts the service pushes' })),
    }),
  })

  const Alert = Type.Object({ id: Type.String(), city: Type.String(), level: Level, message: Type.String() })

  const alert = defineTrigger({
    type: 'weather-alert',
    name: 'Weather alert',
    description: 'A weather warning for a city, pushed by the weather service.',
    tags: ['weather'],
    platform: 'weather',
    connector: { type: 'weather' },
    payload: Type.Object({ city: Type.String({ minLength: 1 }), minLevel: Type.Optional(Level) }),
    result: TriggerEvent(Alert),
    waitPayload: Type.Object({ city: Type.Optional(Type.String()) }),
    matches: (config, event) =>
      event.body.city.toLowerCase() === config.city.toLowerCase() &&
      rank(event.body.level) >= rank(config.minLevel ?? 'yellow'),
  })

  const current = defineAction({
    type: 'weather-current',
    name: 'Current weather',
    description: 'Reads the current temperature of a city from the weather service.',
    tags: ['weather'],
    connector,
    payload: Type.Object({ city: Type.String({ minLength: 1 }) }),
    result: Type.Object({ city: Type.String(), celsius: Type.Number() }),
    async run(ctx) {
      const { baseUrl, apiKey } = ctx.connector!
      const response = await ctx.http.send({
        method: 'GET',
        url: `${baseUrl}/current?city=${encodeURIComponent(ctx.payload.city)}`,
        headers: { authorization: `Bearer ${apiKey}` },
      })
      if (response.status !== 200)
        throw new Error(`the weather service answered ${response.status}: ${response.body.slice(0, 200)}`)
      ctx.log('weather read', { city: ctx.payload.city })
      return { city: ctx.payload.city, celsius: Number(JSON.parse(response.body).celsius) }
    },
  })

  const alerts = defineWebhook({
    name: 'alerts',
    description:
      "Alerts the weather service pushes, signed with the connector's webhookSecret (hex HMAC-SHA256 of the body in X-Weather-Signature).",
    path: '/v1/orgs/:orgId/integrations/weather',
    auth: { kind: 'connector', connector },
    async verify(request, ctx) {
      const secret = ctx.connector?.webhookSecret
      if (!secret) return { ok: false, status: 401, reason: 'the weather connector has no webhookSecret' }
      const expected = await ctx.crypto.hmacSha256(secret, request.rawBody)
      if (!ctx.crypto.safeEqual(expected, request.headers['x-weather-signature'] ?? ''))
        return { ok: false, status: 401, reason: 'bad signature' }
      return { ok: true }
    },
    receive(request) {
      const body = request.body as { id?: unknown } | undefined
      if (typeof body?.id !== 'string') return { events: [] }
      return { events: [{ triggerType: 'weather-alert', eventId: body.id, body }] }
    },
  })

  return definePlugin({
    id: 'weather',
    name: 'Weather',
    version: '1.0.0',
    author: 'Example Weather',
    connector,
    triggers: [alert],
    actions: [current],
    webhooks: [alerts],
  })
}
