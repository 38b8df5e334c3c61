/**
 * What the SDK's second edition adds to triggers, actions and connectors: polling triggers,
 * subscription lifecycle, dynamic options, connector checks, OAuth2 connectors and a crypto
 * toolbox for every handler. Types only; the host (runtime/) and the test kit implement them.
 *
 * The platform owns what plugin authors get wrong elsewhere: a poll's cursor and seen keys are
 * kept durably in the transaction that starts its runs (one run per new item, across restarts
 * and processes, one poller at a time); subscriptions are recorded and reconciled, a failed
 * clean-up never blocks a pause; OAuth2 tokens are refreshed ahead of expiry, once at a time.
 */
import type { Awaitable, ConnectorData, HttpRequest, HttpResponse } from './contexts.ts'

/** Web Crypto helpers, the same on Bun and Deno, in every handler's `ctx.crypto`. */
export interface PluginCrypto {
  /** HMAC-SHA256 of `message` keyed by `key`, hex (default) or base64. */
  hmacSha256(key: string, message: string, encoding?: 'hex' | 'base64'): Promise<string>
  sha256(message: string, encoding?: 'hex' | 'base64'): Promise<string>
  /** Compares two strings in time independent of where they differ. */
  safeEqual(a: string, b: string): boolean
  /** `size` random bytes from the platform's secure generator, hex (default) or base64url. */
  randomBytes(size: number, encoding?: 'hex' | 'base64url'): string
}

/** What every lifecycle handler may use: the guarded HTTP client, crypto, the log, the clock. */
export interface HandlerTools {
  /** Outbound HTTP through the server's SSRF guard, aborted with `signal`. */
  readonly http: { send(request: HttpRequest): Promise<HttpResponse> }
  readonly crypto: PluginCrypto
  log(message: string, fields?: Record<string, unknown>): void
  now(): number
  /** Aborted when the process stops or the call takes too long. */
  readonly signal: AbortSignal
}

/** Which trigger node of which workflow a lifecycle call is about: a trigger instance. */
export interface TriggerInstance {
  readonly organizationId: string
  readonly workflowId: string
  readonly nodeId: string
}

/**
 * A function of a definition's configuration, checked bivariantly like a method, so that a
 * definition with a precise payload type still fits the registry's `Any…` types.
 */
export type ConfigFunction<A, R> = { bivariant(arg: A): R }['bivariant']

// ---- Polling -------------------------------------------------------------------------------

/** One item a poll found. */
export interface PollItem {
  /** Identifies the item for deduplication (a GUID, an id, a link); a key seen before starts nothing. */
  readonly key: string
  /** The run's trigger event body (`{{root.result.body…}}`). */
  readonly body: unknown
}

/** What one poll returns. */
export interface PollResult {
  /** Items in the order runs should start: oldest first. Items seen before may be returned again. */
  readonly items: readonly PollItem[]
  /** Kept by the host and handed to the next poll (an ETag, a `since` time); JSON. Absent: unchanged. */
  readonly cursor?: unknown
}

export interface PollContext<C, K = ConnectorData> extends HandlerTools {
  /** The trigger node's payload. */
  readonly payload: C
  /** The decrypted data of the trigger's connector (an OAuth2 connector's data has a current `accessToken`). */
  readonly connector: K | null
  /** What the last poll returned as `cursor`, or null on the first poll. */
  readonly cursor: unknown
  readonly trigger: TriggerInstance
}

/**
 * Makes a trigger a polling trigger: the host calls `poll` every `intervalMs` for each live
 * trigger instance and starts one run per item whose key it has not seen. The first poll after a
 * trigger is enabled only records what is already there, unless its payload says
 * `fireExisting: true`.
 */
export interface TriggerPoll<C, K = ConnectorData> {
  /** Milliseconds between polls; the host never polls more often than its floor (10 s by default). */
  readonly intervalMs: number | ConfigFunction<C, number>
  poll(ctx: PollContext<C, K>): Awaitable<PollResult>
}

// ---- Subscriptions -------------------------------------------------------------------------

/** A durable, sealed key-value store per trigger instance, kept until the instance is disabled. */
export interface TriggerStore {
  get(key: string): Promise<string | null>
  set(key: string, value: string): Promise<void>
  delete(key: string): Promise<void>
}

export interface SubscriptionContext<C, K = ConnectorData> extends HandlerTools {
  readonly payload: C
  readonly connector: K | null
  /**
   * The public URL the platform should post this trigger's events to: the plugin's webhook
   * (the one the trigger names with `webhook`, else its only one) under AUTOMATON_PUBLIC_URL.
   * Null when the operator has not set AUTOMATON_PUBLIC_URL.
   */
  readonly webhookUrl: string | null
  readonly store: TriggerStore
  readonly trigger: TriggerInstance
}

/** What `onEnable` may answer. */
export interface SubscriptionResult {
  /** When the platform expires the subscription (ms since the epoch): the host enables it again before then. */
  readonly expiresAt?: number
}

// ---- Dynamic options -----------------------------------------------------------------------

export interface OptionsContext<K = ConnectorData> extends HandlerTools {
  /** The other fields' current values, as the editor has them (unresolved). */
  readonly values: Readonly<Record<string, unknown>>
  readonly connector: K | null
  readonly search: string | null
  readonly cursor: string | null
}

export interface OptionItem {
  readonly label: string
  readonly value: string | number | boolean
}

export interface OptionsPage {
  readonly items: readonly OptionItem[]
  /** Hand it back as `cursor` for the next page; absent or null when this is the last. */
  readonly nextCursor?: string | null
}

/** Loaders of allowed values, by payload field name (top-level fields). */
export type OptionLoaders<K = ConnectorData> = Readonly<
  Record<string, ConfigFunction<OptionsContext<K>, Awaitable<OptionsPage>>>
>

// ---- Connector checks and OAuth2 -----------------------------------------------------------

export interface ConnectorTestContext<D> extends HandlerTools {
  /** The connector's decrypted data (with a current `accessToken` for an OAuth2 connector). */
  readonly data: D
}

/** A connector check's answer, returned to the caller as is. */
export interface ConnectorTestResult {
  readonly ok: boolean
  readonly message?: string
}

/** A value fixed by the connector type, or read from the connector's data. */
export type FromData<D> = string | ConfigFunction<D, string>

export type OAuth2Grant = 'authorization_code' | 'client_credentials'

/**
 * Makes a connector type an OAuth2 one. The connector's data holds `clientId` and
 * `clientSecret` (a `Secret()`); the host runs the authorization (code with PKCE) or mints
 * tokens (client credentials), seals them, refreshes them ahead of expiry once at a time, and
 * hands handlers a data object with a current `accessToken`.
 */
export interface OAuth2Settings<D = ConnectorData> {
  /** Fixed by the type, or read from the data (the generic `oauth2` type lets the organization choose). */
  readonly grant: OAuth2Grant | ConfigFunction<D, OAuth2Grant>
  readonly authorizationUrl?: FromData<D>
  readonly tokenUrl: FromData<D>
  readonly scopes?: readonly string[] | ConfigFunction<D, readonly string[]>
  /** Extra query parameters of the authorization request (`access_type=offline`, `prompt=consent`). */
  readonly authorizationParams?: Readonly<Record<string, string>>
  /** For APIs that answer an expired token with 200 and an error in the body: true makes the host refresh and retry once. */
  isExpired?(response: HttpResponse): boolean
}
