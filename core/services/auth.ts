/**
 * Authentication of `Authorization: Bearer svcsk_…` keys and the caller's effective permissions.
 * (Sessions of people are authenticated by services/people.ts; the HTTP auth gate picks which.)
 *
 * A key is looked up by the SHA-256 of its raw value. Lookups are cached for a moment; every
 * change that takes access away (revoke, disable, permission edit, delete) invalidates the cache
 * at once in this process and, over the bus, in the others. `lastUsedAt/Ip/UserAgent` are kept
 * in memory and written in one batch every few seconds rather than once per request.
 */
import { RAW_KEY_PREFIX } from '../domain/api-key.ts'
import {
  isPermission,
  narrowToScope,
  type Permission,
  ROLE_PERMISSIONS,
  type Role,
  type Scope,
} from '../domain/permissions.ts'
import { type AppError, forbidden, unauthorized } from '../errors.ts'
import type { Bus } from '../ports/bus.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import { sha256Hex } from '../security/hash.ts'
import { type ApiKeyRow, apiKeys, type LastUse } from '../store/api-keys.ts'
import { type ServiceAccountRow, serviceAccounts } from '../store/service-accounts.ts'
import { BoundedMap } from '../bounded-map.ts'

export interface Principal {
  /** An API key, or a person's sign-in session (services/people.ts). */
  readonly kind: 'key' | 'session'
  readonly organizationId: string
  readonly keyId: string | null
  readonly sessionId: string | null
  readonly serviceAccountId: string | null
  readonly userId: string | null
  readonly role: Role | null
  readonly scope: Scope
  readonly permissions: ReadonlySet<Permission>
  /**
   * Set for a session caller that has no organization for this request (no X-Org-ID while a
   * member of several, or not a member of the one named): organization routes answer it.
   */
  readonly organizationProblem?: AppError
  /**
   * Permissions the caller's role or account names but its organization cannot use (moderating
   * templates outside the operator organization). Granting them on is allowed: they stay inert.
   */
  readonly withheld?: ReadonlySet<Permission>
}

export interface RequestMeta {
  readonly ip: string | null
  readonly userAgent: string | null
}

export interface AuthService {
  authenticate(authorization: string | null | undefined, meta: RequestMeta): Promise<Principal>
  /** Forgets cached keys of a key or of a service account, here and in every other process. */
  invalidate(target: { keyId?: string; serviceAccountId?: string; all?: boolean }): void
  /** Writes pending last-use records now. */
  flush(): Promise<void>
  stop(): Promise<void>
}

export const AUTH_INVALIDATE_SUBJECT = 'automaton.internal.auth.invalidate'

interface CacheEntry {
  key: ApiKeyRow
  account: ServiceAccountRow | null
  loadedAt: number
}

export function createAuthService(deps: {
  store: Store
  clock: Clock
  bus: Bus
  logger: Logger
  cacheTtlMs?: number
  flushEveryMs?: number
}): AuthService {
  const ttl = deps.cacheTtlMs ?? 2000
  const cache = new BoundedMap<string, CacheEntry>(10_000)
  const pendingUses = new Map<string, LastUse>()

  const forget = (target: { keyId?: string; serviceAccountId?: string; all?: boolean }) => {
    if (target.all) return cache.clear()
    for (const [hash, entry] of cache) {
      if (
        entry.key.id === target.keyId ||
        (target.serviceAccountId && entry.key.service_account_id === target.serviceAccountId)
      ) {
        cache.delete(hash)
      }
    }
  }
  const subscription = deps.bus.subscribe<{ keyId?: string; serviceAccountId?: string; all?: boolean }>(
    AUTH_INVALIDATE_SUBJECT,
    (m) => forget(m.data),
  )

  async function load(hash: string): Promise<CacheEntry | undefined> {
    const now = deps.clock.now()
    const cached = cache.get(hash)
    if (cached && now - cached.loadedAt < ttl) return cached
    const key = await apiKeys.byHash(deps.store, hash)
    if (!key) {
      cache.delete(hash)
      return undefined
    }
    const account = key.service_account_id
      ? ((await serviceAccounts.byIdAnyState(deps.store, key.service_account_id)) ?? null)
      : null
    const entry = { key, account, loadedAt: now }
    cache.set(hash, entry)
    return entry
  }

  async function flush() {
    if (pendingUses.size === 0) return
    const uses = [...pendingUses.values()]
    pendingUses.clear()
    try {
      await deps.store.write((tx) => apiKeys.recordUse(tx, uses))
    } catch (error) {
      deps.logger.warn('could not record API key use', { error: String(error) })
    }
  }
  const timer = setInterval(flush, deps.flushEveryMs ?? 5000)
  ;(timer as { unref?: () => void }).unref?.()

  return {
    async authenticate(authorization, meta) {
      const raw = parseBearer(authorization)
      const entry = await load(await sha256Hex(raw))
      if (!entry) throw unauthorized('unknown API key')
      const { key, account } = entry
      const now = deps.clock.now()
      if (key.revoked_at !== null) throw unauthorized('API key has been revoked')
      if (key.expires_at !== null && key.expires_at <= now) throw unauthorized('API key has expired')
      let granted: Permission[]
      if (key.service_account_id) {
        if (!account || account.deleted_at !== null) throw unauthorized('service account of this API key was deleted')
        if (account.status !== 'active') throw unauthorized('service account of this API key is disabled')
        granted = (JSON.parse(account.permissions) as string[]).filter(isPermission)
      } else {
        granted = [...(ROLE_PERMISSIONS[key.role ?? 'viewer'] ?? [])]
      }
      pendingUses.set(key.id, { keyId: key.id, at: now, ip: meta.ip, userAgent: meta.userAgent?.slice(0, 512) ?? null })
      return {
        kind: 'key',
        organizationId: key.organization_id,
        keyId: key.id,
        sessionId: null,
        serviceAccountId: key.service_account_id,
        userId: key.user_id,
        role: key.role,
        scope: key.scope,
        permissions: new Set(narrowToScope(granted, key.scope)),
      }
    },
    invalidate(target) {
      forget(target)
      deps.bus.publish(AUTH_INVALIDATE_SUBJECT, target)
    },
    flush,
    async stop() {
      clearInterval(timer)
      subscription.unsubscribe()
      await flush()
    },
  }
}

function parseBearer(authorization: string | null | undefined): string {
  if (!authorization) throw unauthorized('missing Authorization header; send "Authorization: Bearer svcsk_…"')
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  if (!match) throw unauthorized('Authorization header must be "Bearer <API key>"')
  if (!match[1].startsWith(RAW_KEY_PREFIX)) throw unauthorized('unknown API key')
  return match[1]
}

export function requirePermission(principal: Principal, permission: Permission): void {
  if (!principal.permissions.has(permission)) {
    const who = principal.kind === 'session' ? `your role (${principal.role}) in this organization` : 'this API key'
    throw forbidden(`${who} lacks the permission ${permission}`, [{ message: 'missing permission', permission }])
  }
}

/** The id recorded as `createdBy`/`updatedBy` for what a caller does. */
export function actorOf(principal: Principal): string {
  return principal.userId ?? principal.keyId ?? principal.sessionId ?? 'unknown'
}
