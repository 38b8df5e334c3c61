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
    await db.run('INSERT INTO organizations (id, name, created_at) VALUES ($1, $2, $3)', [org.id, org.name, org.createdAt])
  },
  async byId(db: SqlExecutor, id: string) {
    const row = await db.get<OrganizationRow>('SELECT * FROM organizations WHERE id = $1', [id])
    return row && toOrganization(row)
  },
  async byName(db: SqlExecutor, name: string) {
    const row = await db.get<OrganizationRow>('SELECT * FROM organizations WHERE name = $1', [name])
    return row && toOrganization(row)
  },
  async list(db: SqlExecutor) {
    return (await db.all<OrganizationRow>('SELECT * FROM organizations ORDER BY id')).map(toOrganization)
  },
}
