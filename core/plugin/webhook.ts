/**
 * The contract of an integration webhook: an inbound HTTP endpoint of a plugin that a third-party
 * platform posts to. A webhook says where it is mounted, where its verification secret comes
 * from, how a request is verified (from the raw body, headers and query) and how a verified
 * request becomes trigger events. Types only.
 *
 * The host owns everything around these two functions: mounting the path, reading the body,
 * finding the secret, deduplicating event ids, storing events, routing each event to the live
 * workflows whose trigger matches it and to the runs waiting for it, and answering the Webhook
 * result object. A plugin never starts runs itself.
 */
import type { Awaitable, ConnectorData } from './contexts.ts'
import type { ConnectorRequirement } from './definitions.ts'
import type { PluginCrypto } from './lifecycle.ts'

/** The request as the webhook sees it. Header names are lower case. */
export interface WebhookRequest {
  readonly method: string
  readonly url: string
  /** Path parameters of the mount path, e.g. `orgId` in `/v1/orgs/:orgId/integrations/acme`. */
  readonly params: Readonly<Record<string, string>>
  readonly query: Readonly<Record<string, string>>
  readonly headers: Readonly<Record<string, string>>
  /** The body exactly as received: verify signatures over this, never over re-serialized JSON. */
  readonly rawBody: string
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  readonly body: unknown
}

/**
 * Where the secret that verifies a request comes from.
 * - `connector`: the data of the organization's connector of that type (`ctx.connector`); when
 *   the organization has several, the host tries each (or the one the `secret` query names).
 * - `organization`: the organization's webhook secret (`ctx.secret`).
 * - `setting`: an operator setting, the environment variable named here (`ctx.secret`); requests
 *   are refused while it is unset.
 * - `subscription`: the value stored under `key` (`ctx.store.set(key, …)` in `onEnable`) by the
 *   organization's enabled subscriptions of this plugin's triggers (`ctx.secret`); the host tries
 *   each, newest first. The secret a platform hands out when a trigger subscribes.
 * - `none`: the webhook verifies requests by their content alone (or not at all).
 */
export type WebhookAuth<K = ConnectorData> =
  | { readonly kind: 'connector'; readonly connector: ConnectorRequirement<K> }
  | { readonly kind: 'organization' }
  | { readonly kind: 'setting'; readonly setting: string }
  | { readonly kind: 'subscription'; readonly key: string }
  | { readonly kind: 'none' }

/** Web Crypto helpers for signature checks (the same as every handler's `ctx.crypto`). */
export type WebhookCrypto = PluginCrypto

export interface WebhookContext<K = ConnectorData> {
  /** The organization named by the path (`:orgId`), or null for installation-wide webhooks. */
  readonly organizationId: string | null
  /** With `auth.kind = 'connector'`: the decrypted data of the connector being tried. */
  readonly connector: K | null
  /** With `auth.kind = 'organization'`, `'setting'` or `'subscription'`: the secret. */
  readonly secret: string | null
  /** The host's clock, in milliseconds since the epoch. */
  now(): number
  log(message: string, fields?: Record<string, unknown>): void
  readonly crypto: WebhookCrypto
}

/** The answer of `verify`: accepted, or refused with a status (400 malformed, 401 not authentic, 404 unknown target). */
export type WebhookVerdict =
  | { readonly ok: true }
  | {
      readonly ok: false
      readonly status: 400 | 401 | 404
      readonly reason: string
      /** Every problem found, each one an entry of the error's `details`; `/path: message` names its field. */
      readonly problems?: readonly string[]
    }

/** One event a verified request carries, for the host to route. */
export interface WebhookEvent {
  /** The trigger type it is for (`payprovider-payment-receive`); events of unknown types are skipped. */
  readonly triggerType: string
  /** The provider's id of the event: the host ignores an id it has already seen (deduplication). */
  readonly eventId: string
  /** What runs start with as `{{$trigger.body…}}`; checked against the trigger's result schema. */
  readonly body: unknown
  /** Headers to put on the trigger event (`{{$trigger.headers…}}`); none by default. */
  readonly headers?: Readonly<Record<string, string>>
  /** For installation-wide webhooks: the organization, when the request says it. */
  readonly organizationId?: string
  /**
   * For installation-wide webhooks: the organizations that hold a connector of `connectorType`
   * whose (non-secret) data has these field values, e.g.
   * `{ connectorType: 'chatapp', data: { teamId: 'T123' } }`.
   */
  readonly route?: { readonly connectorType: string; readonly data: Readonly<Record<string, string>> }
  /**
   * The platform says the organization's connector can no longer reach it (the app was
   * uninstalled, its token revoked). Nothing starts: the organization's live workflows using this
   * plugin's triggers pause with `invalid_chat`, and resuming one checks its connectors again.
   */
  readonly connectorRevoked?: boolean
  /** A direct target instead of trigger matching: a workflow to start or a waiting run to resume. */
  readonly target?: { readonly workflowId?: string; readonly runId?: string }
}

/** What `receive` returns: events to route, or an answer to give as is (a URL-verification challenge). */
export type WebhookReply = { readonly events: readonly WebhookEvent[] } | { readonly respond: WebhookResponse }

export interface WebhookResponse {
  readonly status?: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

/** The specification's Webhook result object, as the host computed it after routing. */
export interface WebhookResult {
  readonly action: 'triggered' | 'resumed' | 'skipped'
  /** The audit id of the stored event (`evt_…`), not the provider's id. */
  readonly eventId: string
  readonly reason?: string
  readonly runIds: readonly string[]
}

export interface WebhookDefinition<K = ConnectorData> {
  /** Unique within the plugin: lower-case words joined by dashes (`events`). */
  readonly name: string
  readonly description: string
  /**
   * The path the host mounts it at (POST), starting with `/v1/`. A `:orgId` parameter makes the
   * webhook organization-scoped; without it the webhook is installation-wide and its events say
   * where they go (`organizationId`, `route` or `target`).
   */
  readonly path: string
  readonly auth: WebhookAuth<K>
  /** Checks that the request is authentic. Called once per candidate secret; must not have side effects. */
  verify(request: WebhookRequest, ctx: WebhookContext<K>): Awaitable<WebhookVerdict>
  /** Turns a verified request into events (or a direct answer). */
  receive(request: WebhookRequest, ctx: WebhookContext<K>): Awaitable<WebhookReply>
  /** Shapes the HTTP answer from the routing result; default: the Webhook result object, status 200. */
  answer?(result: WebhookResult, request: WebhookRequest): WebhookResponse
}
