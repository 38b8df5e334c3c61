/**
 * Minting, listing and revoking API keys. A raw key is `svcsk_` and 32 random bytes
 * (base64url); only its SHA-256 and its first characters are stored.
 */
import { type ApiKey, type CreateApiKeyBody, RAW_KEY_PREFIX } from '../domain/api-key.ts'
import { type Page, type PageRequest, toPage } from '../domain/common.ts'
import {
  isPermission,
  narrowToScope,
  type Permission,
  ROLE_PERMISSIONS,
  type Role,
  type Scope,
} from '../domain/permissions.ts'
import { badRequest, forbidden, notFound } from '../errors.ts'
import { randomToken } from '../ids.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { Store } from '../ports/store.ts'
import { sha256Hex } from '../security/hash.ts'
import { apiKeys, toApiKey } from '../store/api-keys.ts'
import { serviceAccounts } from '../store/service-accounts.ts'
import { parseIso } from '../time.ts'
import { actorOf, type AuthService, type Principal } from './auth.ts'
import { guarded } from './operations.ts'

export const KEY_PREFIX_LENGTH = 12

export function generateRawKey(): string {
  return RAW_KEY_PREFIX + randomToken(32)
}

export interface IssueKey {
  organizationId: string
  name: string
  description?: string
  scope: Scope
  role: Role | null
  serviceAccountId: string | null
  userId: string | null
  createdBy: string
  expiresAt: number | null
  /** A raw key chosen by the operator (bootstrap); generated when absent. */
  rawKey?: string
}

/** API keys: minting them for callers and for the system, listing, reading and revoking them. */
export interface ApiKeyService {
  /** A key made by the system itself (bootstrap, the CLI, agents' worker sessions); the raw key is shown once. */
  issue(input: IssueKey): Promise<ApiKey & { key: string }>
  /** `POST /v1/api-keys`: a caller can hand out only what it holds; the raw key is shown once. */
  create(caller: Principal, body: CreateApiKeyBody): Promise<ApiKey & { key: string }>
  /** The organization's keys, a service account's when one is named, a page at a time. */
  list(caller: Principal, page: PageRequest, serviceAccountId?: string): Promise<Page<ApiKey>>
  /** One key, without its secret. */
  get(caller: Principal, id: string): Promise<ApiKey>
  /** Revoking keeps the record with `revokedAt`; revoking twice is harmless. */
  revoke(caller: Principal, id: string): Promise<ApiKey>
}

export function createApiKeyService(deps: { store: Store; clock: Clock; ids: Ids; auth: AuthService }): ApiKeyService {
  const { store, clock, ids } = deps

  async function issue(input: IssueKey): Promise<ApiKey & { key: string }> {
    const raw = input.rawKey ?? generateRawKey()
    const row = {
      id: ids.next('key'),
      organization_id: input.organizationId,
      name: input.name,
      description: input.description ?? '',
      key_prefix: raw.slice(0, KEY_PREFIX_LENGTH),
      key_hash: await sha256Hex(raw),
      scope: input.scope,
      role: input.role,
      user_id: input.userId,
      service_account_id: input.serviceAccountId,
      created_at: clock.now(),
      created_by: input.createdBy,
      expires_at: input.expiresAt,
    }
    await store.write((tx) => apiKeys.insert(tx, row))
    const stored = await apiKeys.byId(store, input.organizationId, row.id)
    return { ...toApiKey(stored!), key: raw }
  }

  return guarded<ApiKeyService>(
    'apiKeys',
    {
      create: ['apikey:create'],
      list: ['apikey:read'],
      get: ['apikey:read'],
      revoke: ['apikey:revoke'],
      // Keys made by the system itself (bootstrap, the CLI, agents' worker sessions).
      issue: null,
    },
    {
      issue,

      /** `POST /v1/api-keys`: a caller can hand out only what it holds. */
      async create(caller: Principal, body: CreateApiKeyBody) {
        const scope: Scope = body.scope ?? 'read-write'
        if (caller.scope === 'read' && scope !== 'read')
          throw forbidden('a read-scoped key cannot create a read-write key')
        let expiresAt: number | null = null
        if (body.expiresAt !== undefined) {
          expiresAt = parseIso(body.expiresAt)
          if (Number.isNaN(expiresAt))
            throw badRequest('invalid expiresAt', [{ path: '/expiresAt', message: 'must be an RFC 3339 timestamp' }])
          if (expiresAt <= clock.now())
            throw badRequest('invalid expiresAt', [{ path: '/expiresAt', message: 'must be in the future' }])
        }
        // A key without a service account inherits its creator's identity.
        const serviceAccountId = body.serviceAccountId ?? caller.serviceAccountId
        let granted: Permission[]
        if (serviceAccountId) {
          const account = await serviceAccounts.byId(store, caller.organizationId, serviceAccountId)
          if (!account)
            throw badRequest('unknown service account', [
              { path: '/serviceAccountId', message: 'no such service account in this organization' },
            ])
          if (account.status !== 'active')
            throw badRequest('service account is disabled', [
              { path: '/serviceAccountId', message: 'service account is disabled' },
            ])
          granted = (JSON.parse(account.permissions) as string[]).filter(isPermission)
        } else {
          granted = [...ROLE_PERMISSIONS[caller.role ?? 'viewer']]
        }
        assertDelegable(caller, narrowToScope(granted, scope))
        return issue({
          organizationId: caller.organizationId,
          name: body.name,
          description: body.description,
          scope,
          role: serviceAccountId ? null : caller.role,
          serviceAccountId: serviceAccountId ?? null,
          userId: serviceAccountId ? null : caller.userId,
          createdBy: actorOf(caller),
          expiresAt,
        })
      },

      async list(caller: Principal, page: PageRequest, serviceAccountId?: string): Promise<Page<ApiKey>> {
        return toPage((await apiKeys.list(store, caller.organizationId, page, serviceAccountId)).map(toApiKey), page)
      },

      async get(caller: Principal, id: string): Promise<ApiKey> {
        const row = await apiKeys.byId(store, caller.organizationId, id)
        if (!row) throw notFound('API key')
        return toApiKey(row)
      },

      /** Revoking keeps the record with `revokedAt`; revoking twice is harmless. */
      async revoke(caller: Principal, id: string): Promise<ApiKey> {
        const row = await apiKeys.byId(store, caller.organizationId, id)
        if (!row) throw notFound('API key')
        if (row.revoked_at === null) {
          await store.write((tx) => apiKeys.revoke(tx, caller.organizationId, id, clock.now()))
          deps.auth.invalidate({ keyId: id })
        }
        return toApiKey((await apiKeys.byId(store, caller.organizationId, id))!)
      },
    },
  )
}

/** Throws 403 naming every permission the caller would hand out without holding it. */
export function assertDelegable(caller: Principal, permissions: Iterable<Permission>): void {
  const missing = [...permissions].filter((p) => !caller.permissions.has(p) && !caller.withheld?.has(p))
  if (missing.length > 0) {
    throw forbidden(
      `cannot grant permissions the caller does not hold: ${missing.join(', ')}`,
      missing.map((permission) => ({ message: 'caller does not hold this permission', permission })),
    )
  }
}
