/**
 * The plugin SDK: what plugin authors use to describe triggers, actions, integration webhooks
 * and connectors. Everything is a plain, frozen object with TypeBox schemas for its inputs and
 * outputs, so handler arguments are typed and the catalog endpoints are generated from them.
 *
 * This file has no runtime dependencies beyond TypeBox types; it never calls into the host.
 * The host (runtime/) implements the contexts declared here.
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
import { type Static, type TAny, type TObject, type TSchema, Type } from '@sinclair/typebox'

export { Type }
export type { Static, TObject, TSchema }

/**
 * The schema of a condition field (`if`, `filter`): `{ "$and" | "$or": [ … ] }`. Declare the
 * field in `raw` and evaluate it with `ctx.evaluateCondition`; definitions are checked for it.
 */
export function Condition(description = 'a condition: { "$and" | "$or": [ { "<value or {{expression}}>": { "$op": operand } } ] }'): TAny {
  return Type.Any({ description, 'x-automaton': 'condition' })
}

/** What a trigger or action needs from the organization's connectors. `null` means nothing. */
export interface ConnectorRequirement {
  readonly type: string
  readonly accountType?: string
  /** Wallet account types allowed; absent means all. */
  readonly walletSupport?: readonly string[]
}

export interface RunInfo {
  readonly id: string
  readonly workflowId: string
  readonly workflowVersion: number
  readonly organizationId: string
}

/** An outbound HTTP request through the host's guarded client (private targets refused). */
export interface HttpRequest {
  method: string
  url: string
  headers?: Record<string, string>
  body?: string
  timeoutMs?: number
}
export interface HttpResponse {
  status: number
  headers: Record<string, string>
  body: string
  truncated: boolean
  durationMs: number
}

/** A wait a node asks for; the run is persisted and its memory released until it ends. */
export interface WaitRequest {
  /** Resume at this time (milliseconds since the epoch). */
  readonly until?: number
  /** Resume on an event of this trigger type whose fields match `match`. */
  readonly triggerType?: string
  readonly match?: Readonly<Record<string, unknown>>
  /** Give up after this long; the node then resumes through `timeout`. */
  readonly timeoutMs?: number
  /** Anything the node wants back when it resumes. */
  readonly state?: unknown
}

declare const directive: unique symbol
/** What a handler returns to steer the run instead of (or besides) a plain result. */
export type Directive =
  | { readonly [directive]: true; readonly kind: 'branch'; readonly branch: string; readonly result: unknown }
  | { readonly [directive]: true; readonly kind: 'wait'; readonly wait: WaitRequest }
  | { readonly [directive]: true; readonly kind: 'loop'; readonly items: readonly unknown[] }

export interface ActionContext<P> {
  /** The node's payload with every expression resolved (fields listed in `raw` stay as written). */
  readonly payload: P
  readonly run: RunInfo
  readonly node: { readonly id: string; readonly key: string; readonly attempt: number }
  /** Stable across re-executions of the same attempt: (run, node, attempt). */
  readonly idempotencyKey: string
  /** Aborted on cancel, on timeout and when the process stops. */
  readonly signal: AbortSignal
  /** The decrypted data of the node's connector, when the action requires one. */
  readonly connector: Readonly<Record<string, unknown>> | null
  log(message: string, fields?: Record<string, unknown>): void
  /** The engine's clock, in milliseconds since the epoch. */
  now(): number
  readonly http: { send(request: HttpRequest): Promise<HttpResponse> }
  /** Resolves expressions in a value, with extra roots such as `$item`. */
  evaluate(value: unknown, extra?: Record<string, unknown>): unknown
  /** Evaluates an `if`-style condition, with extra roots such as `$item`. */
  evaluateCondition(condition: unknown, extra?: Record<string, unknown>): boolean
  readonly vars: { get(name: string): unknown; set(name: string, value: unknown): void }
  /** Host services that built-in nodes use; plugins may use them too. */
  readonly services: {
    runCode(code: string, input: unknown): Promise<{ output: unknown; logs: string[] }>
    triggerWorkflow(workflowId: string, payload: Record<string, unknown>): Promise<{ runId: string }>
  }
  branch(branch: string, result: unknown): Directive
  wait(request: WaitRequest): Directive
  loop(items: readonly unknown[]): Directive
}

export interface ResumeContext<P> {
  readonly payload: P
  readonly run: RunInfo
  readonly node: { readonly id: string; readonly key: string }
  /** What the wait was started with. */
  readonly wait: WaitRequest & { readonly startedAt: number }
  now(): number
  branch(branch: string, result: unknown): Directive
}

export type Awaitable<T> = T | Promise<T>

export interface ActionDefinition<P extends TObject = TObject, R extends TSchema = TSchema> {
  /** Catalog type, `<plugin>-<name>` for plugins; built-ins use short names (`if`, `log`). */
  readonly type: string
  readonly name: string
  readonly description: string
  readonly tags?: readonly string[]
  readonly connector?: ConnectorRequirement | null
  readonly payload: P
  readonly result: R
  /** Branch names children may use (`then`/`else` for `if`). */
  readonly branches?: readonly string[]
  /** Payload fields passed as written, for the handler to evaluate itself (conditions). */
  readonly raw?: readonly string[]
  /** Marks a loop: the handler returns `ctx.loop(items)` and `loopBody` nodes run per item. */
  readonly loop?: boolean
  run(ctx: ActionContext<Static<P>>): Awaitable<Static<R> | Directive>
  /** After a wait ends with the awaited event (or time). Default: the event data is the result. */
  resume?(ctx: ResumeContext<Static<P>>, data: unknown): Awaitable<Static<R> | Directive>
  /** After a wait times out. Default: the node fails with "timed out". */
  timeout?(ctx: ResumeContext<Static<P>>): Awaitable<Static<R> | Directive>
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

export interface TriggerDefinition<C extends TObject = TObject, E extends TSchema = TSchema> {
  readonly type: string
  readonly name: string
  readonly description: string
  readonly tags?: readonly string[]
  readonly platform?: string
  readonly documentationUrl?: string
  readonly logoUrl?: string
  readonly connector?: ConnectorRequirement | null
  /** The trigger node's configuration (its `payload` in a definition). */
  readonly payload: C
  /** The event a run starts with: `{{root.result…}}`. */
  readonly result: E
  /** What a `wait` node on this trigger type may match on. */
  readonly waitPayload?: TSchema
  /** Whether an incoming event starts (or resumes) a workflow configured with `config`. */
  matches?(config: Static<C>, event: unknown): boolean
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
}

export interface PluginDefinition {
  readonly id: string
  readonly name?: string
  readonly version?: string
  readonly triggers?: readonly TriggerDefinition<TObject, TSchema>[]
  readonly actions?: readonly ActionDefinition<TObject, TSchema>[]
}

function freeze<T extends object>(value: T): Readonly<T> {
  return Object.freeze({ ...value })
}

/** Describes an action (a node that does something). */
export function defineAction<P extends TObject, R extends TSchema>(action: ActionDefinition<P, R>): ActionDefinition<P, R> {
  return freeze(action) as ActionDefinition<P, R>
}

/** Describes a trigger type (what starts a run). */
export function defineTrigger<C extends TObject, E extends TSchema>(trigger: TriggerDefinition<C, E>): TriggerDefinition<C, E> {
  return freeze(trigger) as TriggerDefinition<C, E>
}

/** Bundles a plugin's triggers and actions under one id. */
export function definePlugin<T extends PluginDefinition>(plugin: T): T {
  return freeze({ ...plugin, triggers: plugin.triggers ?? [], actions: plugin.actions ?? [] }) as T
}
