import type { Organization } from '../domain/organization.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { iso } from '../time.ts'

interface OrganizationRow {
  id: string
  name: string
  created_at: number
}

const toOrganization = (r: OrganizationRow): Organization => ({ id: r.id, name: r.name, createdAt: iso(r.created_at) })

export const organizations = {
  async insert(db: SqlExecutor, org: { id: string; name: string; createdAt: number }) {
    await db.run('INSERT INTO organizations (id, name, created_at) VALUES ($1, $2, $3)', [
      org.id,
      org.name,
      org.createdAt,
    ])
  },
  async byId(db: SqlExecutor, id: string) {
    const row = await db.get<OrganizationRow>('SELECT * FROM organizations WHERE id = $1', [id])
    return row && toOrganization(row)
  },
  /** The oldest organization whose id or name is `idOrName`. */
  idByIdOrName: async (db: SqlExecutor, idOrName: string) =>
    (
      await db.get<{ id: string }>(
        'SELECT id FROM organizations WHERE id = $1 OR name = $1 ORDER BY created_at LIMIT 1',
        [idOrName],
      )
    )?.id,
  async byName(db: SqlExecutor, name: string) {
    const row = await db.get<OrganizationRow>('SELECT * FROM organizations WHERE name = $1', [name])
    return row && toOrganization(row)
  },
  /** The sealed webhook secret and when it was set; undefined for an unknown organization. */
  webhookSecret(db: SqlExecutor, id: string) {
    return db.get<{ webhook_secret: string | null; webhook_secret_updated_at: number | null }>(
      'SELECT webhook_secret, webhook_secret_updated_at FROM organizations WHERE id = $1',
      [id],
    )
  },
  /** Sets the sealed webhook secret; with `onlyIfUnset`, only when none is set (the first reader makes it). */
  setWebhookSecret(tx: SqlExecutor, id: string, sealed: string, at: number, onlyIfUnset: boolean) {
    return tx.run(
      `UPDATE organizations SET webhook_secret = $1, webhook_secret_updated_at = $2 WHERE id = $3${onlyIfUnset ? ' AND webhook_secret IS NULL' : ''}`,
      [sealed, at, id],
    )
  },
  async list(db: SqlExecutor) {
    return (await db.all<OrganizationRow>('SELECT * FROM organizations ORDER BY id')).map(toOrganization)
  },
  /** The organization's own run retention in milliseconds (null: the installation's); undefined for an unknown organization. */
  runRetention(db: SqlExecutor, id: string) {
    return db.get<{ run_retention_ms: number | null }>('SELECT run_retention_ms FROM organizations WHERE id = $1', [id])
  },
  setRunRetention(tx: SqlExecutor, id: string, ms: number | null) {
    return tx.run('UPDATE organizations SET run_retention_ms = $1 WHERE id = $2', [ms, id])
  },
}
