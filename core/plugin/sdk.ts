/**
 * The plugin SDK: what plugin authors use to describe triggers, actions, integration webhooks
 * and connectors. Everything is a plain, frozen object with TypeBox schemas for its inputs and
 * outputs, so handler arguments are typed and the catalog endpoints are generated from them.
 *
 * This file has no runtime dependencies beyond TypeBox; it never calls into the host. The host
 * (runtime/) implements the contexts declared here. External plugins do not import it at run
 * time: their module's default export is a function that receives `sdk` (below).
 *
 * @example
 * ```ts
 * export default definePlugin({
 *   id: 'acme',
 *   actions: [defineAction({
 *     type: 'acme-greet', name: 'Greet', description: 'Says hello',
 *     payload: Type.Object({ name: Type.String() }),
 *     result: Type.Object({ greeting: Type.String() }),
 *     run: ({ payload }) => ({ greeting: `hello ${payload.name}` }),
 *   })],
 * })
 * ```
 */
import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox'
// Schemas written with the SDK check string formats (date-time, email, uri …) the same everywhere.
import './formats.ts'
import type { ConnectorData } from './contexts.ts'
import type {
  ActionDefinition,
  AgentDefinition,
  ConnectorDefinition,
  ConnectorRequirement,
  PluginDefinition,
  TriggerDefinition,
} from './definitions.ts'
import type { ActionContext, Awaitable, Directive } from './contexts.ts'
import type { OAuth2Settings } from './lifecycle.ts'
import { Condition, Secret, TriggerEvent } from './schemas.ts'
import type { WebhookDefinition } from './webhook.ts'

export { Type }
export type { Static, TObject, TSchema }
export { Condition, Secret, TriggerEvent }
export type * from './contexts.ts'
export type * from './definitions.ts'
export type * from './webhook.ts'
export type * from './lifecycle.ts'

/** The version of the SDK contract; a plugin may check `sdk.version` to refuse an older host. */
export const SDK_VERSION = '1.0'

function freeze<T extends object>(value: T): Readonly<T> {
  return Object.freeze({ ...value })
}

/**
 * Describes an action: a node that does something. `run` gets the resolved payload and returns
 * a result (checked against nothing at run time, documented by `result`) or a directive.
 *
 * @example
 * ```ts
 * defineAction({
 *   type: 'weather-current', name: 'Current weather', description: 'Reads the weather of a city',
 *   connector: weatherConnector,
 *   payload: Type.Object({ city: Type.String() }),
 *   result: Type.Object({ celsius: Type.Number() }),
 *   async run(ctx) {
 *     const r = await ctx.http.send({ method: 'GET', url: `https://api.example/w?q=${ctx.payload.city}&key=${ctx.connector.apiKey}` })
 *     return { celsius: JSON.parse(r.body).celsius }
 *   },
 * })
 * ```
 */
export function defineAction<P extends TObject, R extends TSchema, K = ConnectorData>(
  action: ConnectedAction<P, R, K>,
): ActionDefinition<P, R, K>
export function defineAction<P extends TObject, R extends TSchema, K = ConnectorData>(
  action: ActionDefinition<P, R, K>,
): ActionDefinition<P, R, K>
export function defineAction<P extends TObject, R extends TSchema, K = ConnectorData>(
  action: ActionDefinition<P, R, K> | ConnectedAction<P, R, K>,
): ActionDefinition<P, R, K> {
  return freeze(action) as ActionDefinition<P, R, K>
}

/**
 * An action that declares its connector: the host never runs it without one (the node fails
 * first), so its handler's `ctx.connector` is the connector's data, never null.
 */
export type ConnectedAction<P extends TObject, R extends TSchema, K> = Omit<
  ActionDefinition<P, R, K>,
  'connector' | 'run'
> & {
  readonly connector: ConnectorRequirement<K>
  run(ctx: Omit<ActionContext<Static<P>, K>, 'connector'> & { readonly connector: K }): Awaitable<Static<R> | Directive>
}

/**
 * Describes a trigger type: what starts a run (and what a `wait` node may wait for).
 *
 * @example
 * ```ts
 * defineTrigger({
 *   type: 'weather-alert', name: 'Weather alert', description: 'A storm warning for a city',
 *   payload: Type.Object({ city: Type.String() }),
 *   result: TriggerEvent(Type.Object({ city: Type.String(), level: Type.String() })),
 *   matches: (config, event) => event.body.city === config.city,
 * })
 * ```
 */
/** Describes an agent type (see AgentDefinition): its instructions, its tools and its worker session's permissions. */
export function defineAgent<I extends TObject = TObject>(agent: AgentDefinition<I>): AgentDefinition<I> {
  return freeze(agent) as AgentDefinition<I>
}

export function defineTrigger<C extends TObject, E extends TSchema, W extends TObject = TObject, K = ConnectorData>(
  trigger: TriggerDefinition<C, E, W, K>,
): TriggerDefinition<C, E, W, K> {
  return freeze(trigger) as TriggerDefinition<C, E, W, K>
}

/**
 * Describes a connector type: what an organization stores to reach a platform. Mark secret
 * fields with `Secret()`.
 *
 * @example
 * ```ts
 * defineConnector({
 *   type: 'weather', name: 'Weather API', description: 'An API key of the weather service', provider: 'Example Weather',
 *   data: Type.Object({ apiKey: Secret(), units: Type.Optional(Type.String()) }),
 * })
 * ```
 */
export function defineConnector<D extends TObject>(
  connector: ConnectorDefinition<D> & { readonly oauth2: OAuth2Settings<Static<D>> },
): ConnectorDefinition<D> & ConnectorRequirement<Static<D> & OAuth2Data>
export function defineConnector<D extends TObject>(connector: ConnectorDefinition<D>): ConnectorDefinition<D>
export function defineConnector<D extends TObject>(connector: ConnectorDefinition<D>): ConnectorDefinition<D> {
  return freeze(connector) as ConnectorDefinition<D>
}

/** What handlers see besides an OAuth2 connector's own data: a current access token (never the refresh token). */
export type OAuth2Data = { readonly accessToken: string }

/**
 * Describes an integration webhook: an endpoint a platform posts to. `verify` checks the
 * request against the secret the host finds from `auth`; `receive` turns it into trigger events.
 *
 * @example
 * ```ts
 * defineWebhook({
 *   name: 'events', description: 'Weather alerts pushed by the weather service',
 *   path: '/v1/orgs/:orgId/integrations/weather',
 *   auth: { kind: 'connector', connector: weatherConnector },
 *   async verify(req, ctx) {
 *     const expected = await ctx.crypto.hmacSha256(ctx.connector!.apiKey, req.rawBody)
 *     return ctx.crypto.safeEqual(expected, req.headers['x-signature'] ?? '') ? { ok: true } : { ok: false, status: 401, reason: 'bad signature' }
 *   },
 *   receive: (req) => ({ events: [{ triggerType: 'weather-alert', eventId: String((req.body as any).id), body: req.body }] }),
 * })
 * ```
 */
export function defineWebhook<K = ConnectorData>(webhook: WebhookDefinition<K>): WebhookDefinition<K> {
  return freeze(webhook) as WebhookDefinition<K>
}

/** Bundles a plugin's triggers, actions, connectors and webhooks under one id. */
export function definePlugin<T extends PluginDefinition>(plugin: T): T {
  const connectors = [...new Set([...(plugin.connector ? [plugin.connector] : []), ...(plugin.connectors ?? [])])]
  return freeze({
    ...plugin,
    triggers: Object.freeze([...(plugin.triggers ?? [])]),
    actions: Object.freeze([...(plugin.actions ?? [])]),
    connectors: Object.freeze(connectors),
    webhooks: Object.freeze([...(plugin.webhooks ?? [])]),
    agents: Object.freeze([...(plugin.agents ?? [])]),
  }) as T
}

/**
 * Everything an external plugin needs, handed to its module's default export, so the plugin
 * never imports the host at run time.
 *
 * @example
 * ```js
 * // plugins/hello.mjs
 * export default ({ definePlugin, defineAction, Type }) => definePlugin({ id: 'hello', actions: [ … ] })
 * ```
 */
export const sdk = Object.freeze({
  version: SDK_VERSION,
  definePlugin,
  defineTrigger,
  defineAction,
  defineWebhook,
  defineConnector,
  defineAgent,
  Type,
  Condition,
  Secret,
  TriggerEvent,
})
export type Sdk = typeof sdk

/** What an external plugin module default-exports: a plugin, or a function of the SDK that returns one. */
export type PluginModule = PluginDefinition | ((sdk: Sdk) => PluginDefinition | Promise<PluginDefinition>)
