/**
 * The shapes plugin authors fill in: actions, triggers, connectors and the plugin that bundles
 * them (webhooks are in webhook.ts). Types only; `define*` in sdk.ts freeze them, the registry
 * checks them, the host runs them.
 */
import type { Static, TObject, TSchema } from '@sinclair/typebox'
import type { ActionContext, Awaitable, ConnectorData, Directive, ResumeContext } from './contexts.ts'
import type {
  ConnectorTestContext,
  ConnectorTestResult,
  OAuth2Settings,
  OptionLoaders,
  SubscriptionContext,
  SubscriptionResult,
  TriggerPoll,
} from './lifecycle.ts'
import type { WebhookDefinition } from './webhook.ts'

declare const connectorData: unique symbol

/**
 * What a trigger, action or webhook needs from the organization's connectors. A connector
 * definition is itself a requirement, and names its data type: `connector: weatherConnector`
 * types `ctx.connector` from the connector's data schema.
 */
export interface ConnectorRequirement<K = ConnectorData> {
  readonly type: string
  readonly accountType?: string
  /** Wallet account types allowed; absent means all. */
  readonly walletSupport?: readonly string[]
  /**
   * The node may name a connector of this type, and need not: the handler gets null without one
   * (`http-request` and an `oauth2` connector). Such an action can also be an agent's tool.
   */
  readonly optional?: boolean
  /** Type-level only: the data type of connectors of this type. */
  readonly [connectorData]?: K
}

/**
 * A connector type: per-organization configuration for a third-party platform. `data` is the
 * schema of what an organization stores; fields made with `Secret()` are encrypted at rest,
 * masked on output and never written to run records, streams or logs.
 */
export interface ConnectorDefinition<D extends TObject = TObject> extends ConnectorRequirement<Static<D>> {
  /** The connector type organizations create (`POST /v1/connectors { type }`), usually the plugin id. */
  readonly type: string
  readonly name: string
  readonly description: string
  /** Who runs the platform, as shown to people (`Acme Payments`). */
  readonly provider: string
  readonly tags?: readonly string[]
  readonly documentationUrl?: string
  readonly logoUrl?: string
  readonly data: D
  /**
   * Checks that the data reaches the platform (a cheap authenticated call): run when a connector
   * is created or changed and on demand (`POST /v1/connectors/{id}/test`); its answer is the caller's.
   */
  test?(ctx: ConnectorTestContext<Static<D>>): Awaitable<ConnectorTestResult>
  /** Makes this an OAuth2 connector type: the host runs the authorization and keeps the tokens current. */
  readonly oauth2?: OAuth2Settings<Static<D>>
}

/**
 * A type's version and how saved payloads of the previous version become this one. A node keeps
 * the version it was saved with (`typeVersion`) until it is migrated; a plugin that ships a new
 * version keeps the old definition beside it, so both run side by side.
 */
interface Versioned {
  /** The type's version, from 1 (the default). */
  readonly version?: number
  /** Turns a payload saved with version `version - 1` into one of this version. */
  migrate?(payload: Record<string, unknown>): Record<string, unknown>
}

export interface ActionDefinition<P extends TObject = TObject, R extends TSchema = TSchema, K = ConnectorData>
  extends Versioned {
  /** Catalog type, `<plugin>-<name>` for plugins; built-ins use short names (`if`, `log`). */
  readonly type: string
  readonly name: string
  readonly description: string
  readonly tags?: readonly string[]
  readonly documentationUrl?: string
  readonly logoUrl?: string
  /** The connector the node needs; its decrypted data is `ctx.connector`. */
  readonly connector?: ConnectorRequirement<K> | null
  readonly payload: P
  readonly result: R
  /** Branch names children may use (`then`/`else` for `if`). */
  readonly branches?: readonly string[]
  /** Payload fields passed as written, for the handler to evaluate itself (conditions). */
  readonly raw?: readonly string[]
  /** Marks a loop: the handler returns `ctx.loop(items)` and `loopBody` nodes run per item. */
  readonly loop?: boolean
  /**
   * The handler only computes: it answers synchronously (never a promise), from its context
   * alone, with no I/O, no services and no waiting. A run whose nodes are all pure runs to its
   * end inside the transaction that admits it, and may be computed again if that transaction is
   * retried; so a pure handler must do nothing a second call would repeat outside the run.
   */
  readonly pure?: boolean
  run(ctx: ActionContext<Static<P>, K>): Awaitable<Static<R> | Directive>
  /** After a wait ends with the awaited event (or time). Default: the event data is the result. */
  resume?(ctx: ResumeContext<Static<P>>, data: unknown): Awaitable<Static<R> | Directive>
  /** After a wait times out. Default: the node fails with "timed out". */
  timeout?(ctx: ResumeContext<Static<P>>): Awaitable<Static<R> | Directive>
  /** Payload fields whose allowed values the plugin loads (served by `POST /v1/catalog/actions/{type}/options`). */
  readonly options?: OptionLoaders<K>
}

/** What a time-based trigger does with ticks that were due while no scheduler ran. */
export type CatchUpPolicy = 'skip' | 'last' | 'all'

/**
 * The occurrences of a time-based trigger. The host keeps one durable row per live trigger
 * node and fires a run at each occurrence, exactly once across processes and restarts.
 */
export interface TriggerSchedule {
  /** The first occurrence strictly after `after` (milliseconds since the epoch), or null when none is left. */
  next(after: number): number | null
  /** The expression as written and its time zone: shown by the schedule endpoint and in each tick's event. */
  readonly expression: string
  readonly timezone: string
  /** Missed ticks: `skip` (default) starts no run for them, `last` one run for the latest, `all` one each (at most `catchUpLimit`). */
  readonly catchUp?: CatchUpPolicy
  readonly catchUpLimit?: number
}

export interface TriggerDefinition<
  C extends TObject = TObject,
  E extends TSchema = TSchema,
  W extends TObject = TObject,
  K = ConnectorData,
> extends Versioned {
  /** Catalog type: `<platform>-<event>` (`chatapp-mentions`), or a generic name (`evm-log`). */
  readonly type: string
  readonly name: string
  readonly description: string
  readonly tags?: readonly string[]
  /** The platform word (`chatapp`, `payprovider`, `evm` …); see docs/catalog.md. */
  readonly platform?: string
  readonly documentationUrl?: string
  readonly logoUrl?: string
  /** The connector the trigger's handlers (poll, onEnable, onDisable, options) get as `ctx.connector`. */
  readonly connector?: ConnectorRequirement<K> | null
  /** The trigger node's configuration (its `payload` in a definition). */
  readonly payload: C
  /** The event a run starts with: `{{root.result…}}`. Usually `TriggerEvent(bodySchema)`. */
  readonly result: E
  /** What a `wait` node on this trigger type may match on (its `triggerConfig`). */
  readonly waitPayload?: W
  /** Whether an event starts a workflow whose trigger node is configured with `config`. Default: always. */
  matches?(config: Static<C>, event: Static<E>): boolean
  /** Whether an event resumes a node waiting with `match`. Default: every field of `match` equals the same path in the event body. */
  matchesWait?(match: Static<W>, event: Static<E>): boolean
  /**
   * Problems with a configuration that its schema cannot express (a malformed cron expression);
   * paths are relative to the payload. Called only when the payload matches its schema.
   */
  validate?(config: Static<C>): readonly { readonly path?: string; readonly message: string }[]
  /**
   * Makes this a time-based trigger: the host fires a run at every occurrence. Called with a
   * configuration that passed `validate`.
   *
   * @example
   * ```ts
   * schedule: (config) => ({ expression: config.every, timezone: 'UTC', next: (after) => after - (after % 60_000) + 60_000 })
   * ```
   */
  schedule?(config: Static<C>): TriggerSchedule
  /** Makes this a polling trigger: the host calls `poll.poll` every interval and starts a run per new item. */
  readonly poll?: TriggerPoll<Static<C>, K>
  /**
   * Called when a workflow using this trigger goes live (published, resumed, unarchived): register
   * the subscription with the platform (`ctx.webhookUrl`) and keep its id and secret in `ctx.store`.
   * A thrown error refuses the publish: 400 with its message, or 502 when the platform could not
   * be reached. Re-publishing an unchanged trigger node keeps its subscription.
   */
  onEnable?(ctx: SubscriptionContext<Static<C>, K>): Awaitable<SubscriptionResult | undefined>
  /**
   * Called when the instance stops (paused, archived, deleted, replaced by a changed node):
   * remove the subscription. Retried with backoff for up to a day; it never blocks the pause.
   */
  onDisable?(ctx: SubscriptionContext<Static<C>, K>): Awaitable<void>
  /** The name of the plugin's webhook whose URL `onEnable` is given; default: the plugin's only webhook. */
  readonly webhook?: string
  /** Payload fields whose allowed values the plugin loads (served by `POST /v1/catalog/triggers/{type}/options`). */
  readonly options?: OptionLoaders<K>
}

/**
 * An agent type: a model that works toward a prompt in steps, calling the catalog actions it
 * names as tools. Each agent run is an engine run: every model step and every round of tool
 * calls is a journaled node execution, so a run survives a worker crash.
 *
 * @example
 * ```ts
 * defineAgent({
 *   type: 'summarizer', name: 'Summarizer', description: 'Reads pages and summarises them',
 *   system: 'Fetch what you are asked about and answer in three sentences.',
 *   tools: ['http-request'], permissions: ['run:read'], maxSteps: 6,
 * })
 * ```
 */
export interface AgentDefinition<I extends TObject = TObject> {
  /** Lower-case letters, digits and dashes; unique among loaded agents. */
  readonly type: string
  readonly name: string
  readonly description: string
  /** The instructions the model starts with. */
  readonly system: string
  /** Catalog action types the model may call (actions without a connector). */
  readonly tools: readonly string[]
  /** What the run's worker session may do through the API (`automaton-api` tool), and nothing more. */
  readonly permissions: readonly string[]
  /** Model steps at most (1–20, default 8); the last step must answer without tools. */
  readonly maxSteps?: number
  /** The shape of `payload`, for the discovery list; the payload is passed to the agent unread. */
  readonly input?: I
}

export type AnyAgent = AgentDefinition<TObject>

export type AnyAction = ActionDefinition<TObject, TSchema, any>
export type AnyTrigger = TriggerDefinition<TObject, TSchema, TObject, any>
export type AnyConnector = ConnectorDefinition<TObject>
export type AnyWebhook = WebhookDefinition<any>

export interface PluginDefinition {
  /** Lower-case letters, digits and dashes; unique among loaded plugins. */
  readonly id: string
  readonly name?: string
  readonly version?: string
  readonly description?: string
  /** Shown as `createdBy` in the catalog; default: the plugin id. */
  readonly author?: string
  readonly triggers?: readonly AnyTrigger[]
  readonly actions?: readonly AnyAction[]
  /** The plugin's connector type (one), … */
  readonly connector?: AnyConnector
  /** … or several. */
  readonly connectors?: readonly AnyConnector[]
  readonly webhooks?: readonly AnyWebhook[]
  readonly agents?: readonly AnyAgent[]
}
