/** Rows of `users`, `sessions` and `invitations`: people, their sign-ins and their invitations. */
import type { Role } from '../domain/permissions.ts'
import type { SqlExecutor } from '../ports/store.ts'

export interface UserRow {
  id: string
  email: string
  name: string
  created_at: number
  password_hash: string | null
  password_changed_at: number | null
  interests_enabled: number
  interest_tags: string
}

export interface SessionRow {
  id: string
  token_hash: string
  user_id: string
  created_at: number
  last_seen_at: number
  expires_at: number
  revoked_at: number | null
}

export interface InvitationRow {
  id: string
  organization_id: string
  email: string
  role: Role
  token_hash: string
  invited_by: string
  created_at: number
  expires_at: number
  accepted_at: number | null
  accepted_by: string | null
  revoked_at: number | null
}

export interface MembershipRow {
  organization_id: string
  role: Role
  organization_name: string
}

export const users = {
  byId: (db: SqlExecutor, id: string) => db.get<UserRow>('SELECT * FROM users WHERE id = $1', [id]),
  byEmail: (db: SqlExecutor, email: string) =>
    db.get<UserRow>('SELECT * FROM users WHERE email = $1', [email.toLowerCase()]),
  async insert(
    db: SqlExecutor,
    u: { id: string; email: string; name: string; passwordHash: string | null; at: number },
  ) {
    await db.run(
      'INSERT INTO users (id, email, name, created_at, password_hash, password_changed_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [u.id, u.email.toLowerCase(), u.name, u.at, u.passwordHash, u.passwordHash ? u.at : null],
    )
  },
  setPassword: (db: SqlExecutor, id: string, hash: string, at: number) =>
    db.run('UPDATE users SET password_hash = $1, password_changed_at = $2 WHERE id = $3', [hash, at, id]),
  setInterestsEnabled: (db: SqlExecutor, id: string, enabled: boolean) =>
    db.run('UPDATE users SET interests_enabled = $1 WHERE id = $2', [enabled ? 1 : 0, id]),
  setInterestTags: (db: SqlExecutor, id: string, tags: readonly string[]) =>
    db.run('UPDATE users SET interest_tags = $1 WHERE id = $2', [JSON.stringify(tags), id]),
  memberships: (db: SqlExecutor, userId: string) =>
    db.all<MembershipRow>(
      'SELECT m.organization_id, m.role, o.name AS organization_name FROM memberships m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = $1 ORDER BY m.created_at, m.organization_id',
      [userId],
    ),
}

export const sessions = {
  async insert(
    db: SqlExecutor,
    s: {
      id: string
      tokenHash: string
      userId: string
      at: number
      expiresAt: number
      ip: string | null
      userAgent: string | null
    },
  ) {
    await db.run(
      'INSERT INTO sessions (id, token_hash, user_id, created_at, last_seen_at, expires_at, ip, user_agent) VALUES ($1, $2, $3, $4, $4, $5, $6, $7)',
      [s.id, s.tokenHash, s.userId, s.at, s.expiresAt, s.ip, s.userAgent],
    )
  },
  byTokenHash: (db: SqlExecutor, hash: string) =>
    db.get<SessionRow>('SELECT * FROM sessions WHERE token_hash = $1', [hash]),
  touch: (db: SqlExecutor, id: string, at: number) =>
    db.run('UPDATE sessions SET last_seen_at = $1 WHERE id = $2 AND last_seen_at < $1', [at, id]),
  revoke: (db: SqlExecutor, id: string, at: number) =>
    db.run('UPDATE sessions SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]),
  /** Revokes every live session of a user, but the one kept (when given). */
  revokeAllOf: (db: SqlExecutor, userId: string, at: number, keep: string | null = null) =>
    db.run('UPDATE sessions SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL AND id <> $3', [
      at,
      userId,
      keep ?? '',
    ]),
  /** Deletes sessions ended (revoked or expired) before a time: they can never be used again. */
  prune: (db: SqlExecutor, before: number) =>
    db.run('DELETE FROM sessions WHERE (revoked_at IS NOT NULL AND revoked_at < $1) OR expires_at < $1', [before]),
}

export const invitations = {
  async insert(
    db: SqlExecutor,
    i: {
      id: string
      organizationId: string
      email: string
      role: Role
      tokenHash: string
      invitedBy: string
      at: number
      expiresAt: number
    },
  ) {
    await db.run(
      'INSERT INTO invitations (id, organization_id, email, role, token_hash, invited_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [i.id, i.organizationId, i.email.toLowerCase(), i.role, i.tokenHash, i.invitedBy, i.at, i.expiresAt],
    )
  },
  byTokenHash: (db: SqlExecutor, hash: string) =>
    db.get<InvitationRow>('SELECT * FROM invitations WHERE token_hash = $1', [hash]),
  byId: (db: SqlExecutor, organizationId: string, id: string) =>
    db.get<InvitationRow>('SELECT * FROM invitations WHERE organization_id = $1 AND id = $2', [organizationId, id]),
  pending: (db: SqlExecutor, organizationId: string, now: number, limit: number, offset: number) =>
    db.all<InvitationRow>(
      'SELECT * FROM invitations WHERE organization_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2 ORDER BY created_at DESC, id LIMIT $3 OFFSET $4',
      [organizationId, now, limit, offset],
    ),
  /** Marks an invitation used; 0 when it was used, revoked or expired meanwhile. */
  accept: (db: SqlExecutor, id: string, userId: string, at: number) =>
    db.run(
      'UPDATE invitations SET accepted_at = $1, accepted_by = $2 WHERE id = $3 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $1',
      [at, userId, id],
    ),
  revoke: (db: SqlExecutor, organizationId: string, id: string, at: number) =>
    db.run(
      'UPDATE invitations SET revoked_at = $1 WHERE organization_id = $2 AND id = $3 AND accepted_at IS NULL AND revoked_at IS NULL',
      [at, organizationId, id],
    ),
}
