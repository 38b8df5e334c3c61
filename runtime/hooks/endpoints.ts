/**
 * What the outbox and the delivery worker know of endpoints, cached in memory because the outbox
 * asks inside every journal transaction: per organization, the enabled endpoints and the event
 * types they take (an organization without endpoints costs one map lookup); per endpoint, its
 * URL, status and HMAC keys (the secret is opened once, not per delivery).
 *
 * Entries are dropped when an endpoint changes (the service publishes on the bus, so every process
 * hears it) and expire after `ttlMs` anyway, for a change whose bus message was lost.
 */
import type { EndpointStatus } from '../../core/domain/execution-hook.ts'
import { parseJson } from '../../core/json.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { SecretBox } from '../../core/ports/secret-box.ts'
import type { SqlExecutor, Store } from '../../core/ports/store.ts'
import { hookUrlProblem, type HookUrlPolicy } from '../../core/security/hook-url.ts'
import { importSigningKey } from '../../core/security/webhook-signature.ts'
import { hookEndpoints } from '../../core/store/hook-endpoints.ts'

export interface Subscriber {
  readonly id: string
  readonly maxRetries: number
  /** Null takes every event type. */
  readonly types: ReadonlySet<string> | null
}

export interface SendingEndpoint {
  readonly id: string
  readonly organizationId: string
  readonly url: string
  readonly status: EndpointStatus
  /** Why the URL may not be used (the operator's http rules changed since it was accepted), or null. */
  readonly urlProblem: string | null
  /** The keys to sign with at `now`: the current secret, and the previous one while it is honoured. */
  keysAt(now: number): CryptoKey[]
}

export interface EndpointDirectory {
  /** The organization's enabled endpoints; synchronous when cached, read in `tx` when not. */
  subscribers(tx: SqlExecutor, organizationId: string): readonly Subscriber[] | Promise<readonly Subscriber[]>
  /** False only when the organization is known to have no enabled endpoint. */
  mayHaveSubscribers(organizationId: string): boolean
  /** An endpoint as the worker sends to it; null when it does not exist. */
  forSending(endpointId: string): Promise<SendingEndpoint | null>
  invalidate(change: { organizationId?: string; endpointId?: string }): void
}

interface Timed<T> {
  readonly value: T
  readonly at: number
}

export function createEndpointDirectory(deps: {
  store: Store
  clock: Clock
  secretBox: SecretBox
  policy: HookUrlPolicy
  ttlMs?: number
}): EndpointDirectory {
  const ttl = deps.ttlMs ?? 10_000
  const byOrganization = new Map<string, Timed<readonly Subscriber[]>>()
  const byId = new Map<string, Timed<Promise<SendingEndpoint | null>>>()
  // Bumped on every invalidation, so a read that started before a change never caches its result.
  let generation = 0
  const fresh = (entry: Timed<unknown> | undefined): boolean => entry !== undefined && deps.clock.now() - entry.at < ttl

  async function loadSubscribers(tx: SqlExecutor, organizationId: string): Promise<readonly Subscriber[]> {
    const started = generation
    const rows = await hookEndpoints.enabledOf(tx, organizationId)
    const list = rows.map((r): Subscriber => {
      const types = parseJson<string[]>(r.event_types, [])
      return { id: r.id, maxRetries: Number(r.max_retries), types: types.length ? new Set(types) : null }
    })
    if (started === generation) byOrganization.set(organizationId, { value: list, at: deps.clock.now() })
    return list
  }

  async function loadForSending(endpointId: string): Promise<SendingEndpoint | null> {
    const row = await hookEndpoints.anyById(deps.store, endpointId)
    if (!row) return null
    const current = await importSigningKey(await deps.secretBox.open(row.secret))
    const previous = row.previous_secret ? await importSigningKey(await deps.secretBox.open(row.previous_secret)) : null
    const previousUntil = row.previous_secret_until ?? 0
    return {
      id: row.id,
      organizationId: row.organization_id,
      url: row.url,
      status: row.status,
      urlProblem: hookUrlProblem(row.url, deps.policy),
      keysAt: (now) => (previous && now < previousUntil ? [current, previous] : [current]),
    }
  }

  return {
    subscribers(tx, organizationId) {
      const cached = byOrganization.get(organizationId)
      return fresh(cached) ? cached!.value : loadSubscribers(tx, organizationId)
    },
    mayHaveSubscribers(organizationId) {
      const cached = byOrganization.get(organizationId)
      return !fresh(cached) || cached!.value.length > 0
    },
    forSending(endpointId) {
      const cached = byId.get(endpointId)
      if (fresh(cached)) return cached!.value
      // Cached as a promise at once: an invalidation that comes while it loads deletes it.
      const value = loadForSending(endpointId)
      byId.set(endpointId, { value, at: deps.clock.now() })
      value.catch(() => {
        if (byId.get(endpointId)?.value === value) byId.delete(endpointId)
      })
      return value
    },
    invalidate({ organizationId, endpointId }) {
      generation++
      if (organizationId) byOrganization.delete(organizationId)
      else byOrganization.clear()
      if (endpointId) byId.delete(endpointId)
      else byId.clear()
    },
  }
}
