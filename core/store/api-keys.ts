import type { ApiKey } from '../domain/api-key.ts'
import type { PageRequest } from '../domain/common.ts'
import type { Role, Scope } from '../domain/permissions.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { iso } from '../time.ts'

export interface ApiKeyRow {
  id: string
  organization_id: string
  name: string
  description: string
  key_prefix: string
  key_hash: string
  scope: Scope
  role: Role | null
  user_id: string | null
  service_account_id: string | null
  created_at: number
  created_by: string
  expires_at: number | null
  last_used_at: number | null
  last_used_ip: string | null
  last_used_user_agent: string | null
  revoked_at: number | null
}

export function toApiKey(r: ApiKeyRow): ApiKey {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    keyPrefix: r.key_prefix,
    scope: r.scope,
    organizationId: r.organization_id,
    // Unset strings are "", never null (the specification's rule for every resource).
    userId: r.user_id ?? '',
    serviceAccountId: r.service_account_id ?? '',
    role: r.role ?? '',
    createdAt: iso(r.created_at),
    createdBy: r.created_by,
    expiresAt: iso(r.expires_at) ?? '',
    lastUsedAt: iso(r.last_used_at) ?? '',
    lastUsedIp: r.last_used_ip ?? '',
    lastUsedUserAgent: r.last_used_user_agent ?? '',
    revokedAt: iso(r.revoked_at) ?? '',
  }
}

const COLUMNS = [
  'id',
  'organization_id',
  'name',
  'description',
  'key_prefix',
  'key_hash',
  'scope',
  'role',
  'user_id',
  'service_account_id',
  'created_at',
  'created_by',
  'expires_at',
] as const

export interface LastUse {
  keyId: string
  at: number
  ip: string | null
  userAgent: string | null
}

export const apiKeys = {
  async insert(db: SqlExecutor, row: Pick<ApiKeyRow, (typeof COLUMNS)[number]>) {
    await db.run(
      `INSERT INTO api_keys (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
      COLUMNS.map((c) => row[c]),
    )
  },
  byHash(db: SqlExecutor, hash: string) {
    return db.get<ApiKeyRow>('SELECT * FROM api_keys WHERE key_hash = $1', [hash])
  },
  byId(db: SqlExecutor, organizationId: string, id: string) {
    return db.get<ApiKeyRow>('SELECT * FROM api_keys WHERE organization_id = $1 AND id = $2', [organizationId, id])
  },
  list(db: SqlExecutor, organizationId: string, page: PageRequest, serviceAccountId?: string) {
    return serviceAccountId
      ? db.all<ApiKeyRow>(
          'SELECT * FROM api_keys WHERE organization_id = $1 AND service_account_id = $2 ORDER BY id DESC LIMIT $3 OFFSET $4',
          [organizationId, serviceAccountId, page.limit + 1, page.offset],
        )
      : db.all<ApiKeyRow>('SELECT * FROM api_keys WHERE organization_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3', [
          organizationId,
          page.limit + 1,
          page.offset,
        ])
  },
  async revoke(db: SqlExecutor, organizationId: string, id: string, at: number) {
    return db.run('UPDATE api_keys SET revoked_at = $1 WHERE organization_id = $2 AND id = $3 AND revoked_at IS NULL', [
      at,
      organizationId,
      id,
    ])
  },
  /** Revokes a person's keys in an organization (they left it). */
  async revokeForUser(db: SqlExecutor, organizationId: string, userId: string, at: number) {
    return db.run(
      'UPDATE api_keys SET revoked_at = $1 WHERE organization_id = $2 AND user_id = $3 AND revoked_at IS NULL',
      [at, organizationId, userId],
    )
  },
  async revokeForServiceAccount(db: SqlExecutor, serviceAccountId: string, at: number) {
    return db.run('UPDATE api_keys SET revoked_at = $1 WHERE service_account_id = $2 AND revoked_at IS NULL', [
      at,
      serviceAccountId,
    ])
  },
  async recordUse(db: SqlExecutor, uses: Iterable<LastUse>) {
    for (const u of uses) {
      await db.run(
        'UPDATE api_keys SET last_used_at = $1, last_used_ip = $2, last_used_user_agent = $3 WHERE id = $4 AND (last_used_at IS NULL OR last_used_at < $1)',
        [u.at, u.ip, u.userAgent, u.keyId],
      )
    }
  },
}
