import type { PageRequest } from '../domain/common.ts'
import type { ServiceAccount } from '../domain/service-account.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { iso } from '../time.ts'

export interface ServiceAccountRow {
  id: string
  organization_id: string
  name: string
  description: string
  permissions: string
  status: 'active' | 'disabled'
  disabled_at: number | null
  deleted_at: number | null
  created_at: number
  created_by: string
  updated_at: number
}

export function toServiceAccount(r: ServiceAccountRow): ServiceAccount {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    organizationId: r.organization_id,
    permissions: JSON.parse(r.permissions),
    status: r.status,
    disabledAt: iso(r.disabled_at) ?? '',
    createdAt: iso(r.created_at),
    createdBy: r.created_by,
    updatedAt: iso(r.updated_at),
  }
}

export const serviceAccounts = {
  async insert(
    db: SqlExecutor,
    a: {
      id: string
      organizationId: string
      name: string
      description: string
      permissions: string[]
      createdBy: string
      at: number
    },
  ) {
    await db.run(
      `INSERT INTO service_accounts (id, organization_id, name, description, permissions, status, created_at, created_by, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'active', $6, $7, $6)`,
      [a.id, a.organizationId, a.name, a.description, JSON.stringify(a.permissions), a.at, a.createdBy],
    )
  },
  /** A live (not deleted) account of the organization. */
  byId(db: SqlExecutor, organizationId: string, id: string) {
    return db.get<ServiceAccountRow>(
      'SELECT * FROM service_accounts WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL',
      [organizationId, id],
    )
  },
  /** Any account by id, deleted or not; for authentication. */
  byIdAnyState(db: SqlExecutor, id: string) {
    return db.get<ServiceAccountRow>('SELECT * FROM service_accounts WHERE id = $1', [id])
  },
  list(db: SqlExecutor, organizationId: string, page: PageRequest) {
    return db.all<ServiceAccountRow>(
      'SELECT * FROM service_accounts WHERE organization_id = $1 AND deleted_at IS NULL ORDER BY id DESC LIMIT $2 OFFSET $3',
      [organizationId, page.limit + 1, page.offset],
    )
  },
  async update(
    db: SqlExecutor,
    organizationId: string,
    id: string,
    patch: { name?: string; description?: string; permissions?: string[] },
    at: number,
  ) {
    return db.run(
      `UPDATE service_accounts SET
         name = COALESCE($1, name), description = COALESCE($2, description), permissions = COALESCE($3, permissions), updated_at = $4
       WHERE organization_id = $5 AND id = $6 AND deleted_at IS NULL`,
      [
        patch.name ?? null,
        patch.description ?? null,
        patch.permissions ? JSON.stringify(patch.permissions) : null,
        at,
        organizationId,
        id,
      ],
    )
  },
  async setStatus(db: SqlExecutor, organizationId: string, id: string, status: 'active' | 'disabled', at: number) {
    return db.run(
      `UPDATE service_accounts SET status = $1, disabled_at = $2, updated_at = $3
       WHERE organization_id = $4 AND id = $5 AND deleted_at IS NULL`,
      [status, status === 'disabled' ? at : null, at, organizationId, id],
    )
  },
  async softDelete(db: SqlExecutor, organizationId: string, id: string, at: number) {
    return db.run(
      `UPDATE service_accounts SET deleted_at = $1, status = 'disabled', disabled_at = COALESCE(disabled_at, $1), updated_at = $1
       WHERE organization_id = $2 AND id = $3 AND deleted_at IS NULL`,
      [at, organizationId, id],
    )
  },
}
