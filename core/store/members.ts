import type { Role } from '../domain/permissions.ts'
import type { SqlExecutor } from '../ports/store.ts'

export interface MemberRow {
  organization_id: string
  user_id: string
  role: Role
  created_at: number
  email: string
  name: string
}

export const members = {
  async upsertUser(db: SqlExecutor, user: { id: string; email: string; name: string; at: number }): Promise<string> {
    await db.run(
      'INSERT INTO users (id, email, name, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (email) DO NOTHING',
      [user.id, user.email, user.name, user.at],
    )
    return (await db.get<{ id: string }>('SELECT id FROM users WHERE email = $1', [user.email]))!.id
  },
  async add(db: SqlExecutor, m: { organizationId: string; userId: string; role: Role; at: number }) {
    return db.run(
      'INSERT INTO memberships (organization_id, user_id, role, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (organization_id, user_id) DO NOTHING',
      [m.organizationId, m.userId, m.role, m.at],
    )
  },
  get(db: SqlExecutor, organizationId: string, userId: string) {
    return db.get<MemberRow>(
      'SELECT m.*, u.email, u.name FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = $1 AND m.user_id = $2',
      [organizationId, userId],
    )
  },
  list(db: SqlExecutor, organizationId: string, limit: number, offset: number) {
    return db.all<MemberRow>(
      'SELECT m.*, u.email, u.name FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = $1 ORDER BY m.user_id LIMIT $2 OFFSET $3',
      [organizationId, limit, offset],
    )
  },
  async setRole(db: SqlExecutor, organizationId: string, userId: string, role: Role) {
    return db.run('UPDATE memberships SET role = $1 WHERE organization_id = $2 AND user_id = $3', [
      role,
      organizationId,
      userId,
    ])
  },
  async remove(db: SqlExecutor, organizationId: string, userId: string) {
    return db.run('DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2', [organizationId, userId])
  },
}
