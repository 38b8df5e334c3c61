/**
 * Rows of execution-hook endpoints, in portable SQL. The signing secrets in them are sealed
 * with the secret box; nothing here opens them.
 */
import type { PageRequest } from '../domain/common.ts'
import type { EndpointStatus, HookEndpoint } from '../domain/execution-hook.ts'
import { parseJson } from '../json.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { iso } from '../time.ts'

export interface EndpointRow {
  id: string
  organization_id: string
  name: string
  description: string
  url: string
  /** Sealed with the secret box. */
  secret: string
  previous_secret: string | null
  previous_secret_until: number | null
  event_types: string
  max_retries: number
  status: EndpointStatus
  disabled_reason: string | null
  disabled_at: number | null
  created_at: number
  created_by: string
  updated_at: number
  updated_by: string
}

export function toEndpoint(r: EndpointRow): HookEndpoint {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    description: r.description,
    url: r.url,
    status: r.status,
    subscribedEventTypes: parseJson<string[]>(r.event_types, []),
    maxRetries: Number(r.max_retries),
    // Unset strings are "" in answers (the specification's rule); the row keeps null.
    disabledReason: r.disabled_reason ?? '',
    disabledAt: iso(r.disabled_at) ?? '',
    previousSecretExpiresAt: (r.previous_secret ? iso(r.previous_secret_until) : null) ?? '',
    createdAt: iso(r.created_at),
    createdBy: r.created_by,
    updatedAt: iso(r.updated_at),
  }
}

const ENDPOINT_COLUMNS = [
  'id',
  'organization_id',
  'name',
  'description',
  'url',
  'secret',
  'previous_secret',
  'previous_secret_until',
  'event_types',
  'max_retries',
  'status',
  'disabled_reason',
  'disabled_at',
  'created_at',
  'created_by',
  'updated_at',
  'updated_by',
] as const

export const hookEndpoints = {
  async insert(db: SqlExecutor, row: EndpointRow) {
    await db.run(
      `INSERT INTO hook_endpoints (${ENDPOINT_COLUMNS.join(', ')}) VALUES (${ENDPOINT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
      ENDPOINT_COLUMNS.map((c) => row[c]),
    )
  },
  byId(db: SqlExecutor, organizationId: string, id: string) {
    return db.get<EndpointRow>('SELECT * FROM hook_endpoints WHERE organization_id = $1 AND id = $2', [
      organizationId,
      id,
    ])
  },
  /** Any organization's endpoint: for the delivery worker, which works across organizations. */
  anyById(db: SqlExecutor, id: string) {
    return db.get<EndpointRow>('SELECT * FROM hook_endpoints WHERE id = $1', [id])
  },
  enabledOf(db: SqlExecutor, organizationId: string) {
    return db.all<Pick<EndpointRow, 'id' | 'event_types' | 'max_retries'>>(
      "SELECT id, event_types, max_retries FROM hook_endpoints WHERE organization_id = $1 AND status = 'enabled'",
      [organizationId],
    )
  },
  list(db: SqlExecutor, organizationId: string, page: PageRequest) {
    return db.all<EndpointRow>(
      'SELECT * FROM hook_endpoints WHERE organization_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3',
      [organizationId, page.limit + 1, page.offset],
    )
  },
  setStatus(
    db: SqlExecutor,
    organizationId: string,
    id: string,
    status: EndpointStatus,
    reason: string | null,
    at: number,
    by: string,
  ) {
    return db.run(
      `UPDATE hook_endpoints SET status = $1, disabled_reason = $2, disabled_at = $3, updated_at = $4, updated_by = $5
       WHERE organization_id = $6 AND id = $7 AND status <> $1`,
      [status, reason, status === 'disabled' ? at : null, at, by, organizationId, id],
    )
  },
  /** Sets the given columns; the SQL names only columns of this table. */
  update(
    db: SqlExecutor,
    organizationId: string,
    id: string,
    fields: Partial<Pick<EndpointRow, 'name' | 'description' | 'url' | 'event_types' | 'max_retries'>>,
    at: number,
    by: string,
  ) {
    const entries = Object.entries(fields).filter(([, v]) => v !== undefined)
    const sets = [
      ...entries.map(([column], i) => `${column} = $${i + 1}`),
      `updated_at = $${entries.length + 1}`,
      `updated_by = $${entries.length + 2}`,
    ]
    return db.run(
      `UPDATE hook_endpoints SET ${sets.join(', ')} WHERE organization_id = $${entries.length + 3} AND id = $${entries.length + 4}`,
      [...entries.map(([, v]) => v), at, by, organizationId, id],
    )
  },
  /** The delivery records stay; the worker closes those still queued as "the endpoint no longer exists". */
  remove(db: SqlExecutor, organizationId: string, id: string) {
    return db.run('DELETE FROM hook_endpoints WHERE organization_id = $1 AND id = $2', [organizationId, id])
  },
  rotateSecret(
    db: SqlExecutor,
    organizationId: string,
    id: string,
    secret: string,
    previous: string | null,
    previousUntil: number | null,
    at: number,
    by: string,
  ) {
    return db.run(
      `UPDATE hook_endpoints SET secret = $1, previous_secret = $2, previous_secret_until = $3, updated_at = $4, updated_by = $5
       WHERE organization_id = $6 AND id = $7`,
      [secret, previous, previousUntil, at, by, organizationId, id],
    )
  },
}
