/**
 * Rows of OpenID Connect sign-in: providers added with the CLI, identities (a provider's subject
 * and the person it is), sign-ins under way, sessions a provider began, one-time sign-in links,
 * and the organizations that require single sign-on.
 */
import type { SqlExecutor } from '../ports/store.ts'

export interface OidcProviderRow {
  name: string
  display_name: string
  issuer: string
  client_id: string
  sealed_client_secret: string
  groups_claim: string
  group_roles: string
  scopes: string
  jit: number
  created_at: number
}

export interface OidcAuthorizationRow {
  state_hash: string
  provider: string
  sealed_verifier: string
  return_to: string
  subject: string | null
  user_id: string | null
  created_at: number
}

export interface OidcSessionRow {
  session_id: string
  provider: string
  subject: string
  sealed_refresh_token: string | null
  checked_at: number
  /** The provider's session id (the ID token's `sid`), which a back-channel logout may name. */
  sid?: string | null
}

export const oidcProviders = {
  all: (db: SqlExecutor) => db.all<OidcProviderRow>('SELECT * FROM oidc_providers ORDER BY name'),
  byName: (db: SqlExecutor, name: string) =>
    db.get<OidcProviderRow>('SELECT * FROM oidc_providers WHERE name = $1', [name]),
  insert: (db: SqlExecutor, r: OidcProviderRow) =>
    db.run(
      'INSERT INTO oidc_providers (name, display_name, issuer, client_id, sealed_client_secret, groups_claim, group_roles, scopes, jit, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
      [
        r.name,
        r.display_name,
        r.issuer,
        r.client_id,
        r.sealed_client_secret,
        r.groups_claim,
        r.group_roles,
        r.scopes,
        r.jit,
        r.created_at,
      ],
    ),
  remove: (db: SqlExecutor, name: string) => db.run('DELETE FROM oidc_providers WHERE name = $1', [name]),
}

export const oidcIdentities = {
  userOf: async (db: SqlExecutor, provider: string, subject: string) =>
    (
      await db.get<{ user_id: string }>('SELECT user_id FROM oidc_identities WHERE provider = $1 AND subject = $2', [
        provider,
        subject,
      ])
    )?.user_id ?? null,
  link: (db: SqlExecutor, provider: string, subject: string, userId: string, at: number) =>
    db.run(
      'INSERT INTO oidc_identities (provider, subject, user_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (provider, subject) DO NOTHING',
      [provider, subject, userId, at],
    ),
}

export const oidcAuthorizations = {
  insert: (db: SqlExecutor, r: OidcAuthorizationRow) =>
    db.run(
      'INSERT INTO oidc_authorizations (state_hash, provider, sealed_verifier, return_to, subject, user_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [r.state_hash, r.provider, r.sealed_verifier, r.return_to, r.subject, r.user_id, r.created_at],
    ),
  byHash: (db: SqlExecutor, stateHash: string) =>
    db.get<OidcAuthorizationRow>('SELECT * FROM oidc_authorizations WHERE state_hash = $1', [stateHash]),
  /** Takes a sign-in under way: it is deleted as it is read, so a state works once. */
  take: (db: SqlExecutor, stateHash: string) =>
    db.get<OidcAuthorizationRow>('DELETE FROM oidc_authorizations WHERE state_hash = $1 RETURNING *', [stateHash]),
  prune: (db: SqlExecutor, before: number) => db.run('DELETE FROM oidc_authorizations WHERE created_at < $1', [before]),
}

export const oidcSessions = {
  insert: (db: SqlExecutor, r: OidcSessionRow) =>
    db.run(
      'INSERT INTO oidc_sessions (session_id, provider, subject, sealed_refresh_token, checked_at, sid) VALUES ($1, $2, $3, $4, $5, $6)',
      [r.session_id, r.provider, r.subject, r.sealed_refresh_token, r.checked_at, r.sid ?? null],
    ),
  /**
   * The live sessions a back-channel logout names: the subject's, or only the provider session
   * `sid` when given (with or without the subject).
   */
  named: (db: SqlExecutor, provider: string, logout: { subject: string | null; sid: string | null }, now: number) => {
    const params: Array<string | number> = [provider, now]
    const where = ['o.provider = $1', 's.revoked_at IS NULL', 's.expires_at > $2']
    for (const [column, value] of [
      ['o.subject', logout.subject],
      ['o.sid', logout.sid],
    ] as const) {
      if (value === null) continue
      params.push(value)
      where.push(`${column} = $${params.length}`)
    }
    return db.all<{ session_id: string; user_id: string }>(
      `SELECT o.session_id, s.user_id FROM oidc_sessions o JOIN sessions s ON s.id = o.session_id WHERE ${where.join(' AND ')}`,
      params,
    )
  },
  /** Live sessions whose groups were last checked before `before`, the longest unchecked first. */
  /** Live sessions last checked before `before`, oldest check first, after the cursor `after` (that order's last row seen). */
  due: (
    db: SqlExecutor,
    before: number,
    now: number,
    limit: number,
    after: { checkedAt: number; sessionId: string } = { checkedAt: -1, sessionId: '' },
  ) =>
    db.all<{ session_id: string; user_id: string; checked_at: number }>(
      `SELECT o.session_id, s.user_id, o.checked_at FROM oidc_sessions o JOIN sessions s ON s.id = o.session_id
       WHERE o.checked_at < $1 AND s.revoked_at IS NULL AND s.expires_at > $2
         AND (o.checked_at > $4 OR (o.checked_at = $4 AND o.session_id > $5))
       ORDER BY o.checked_at, o.session_id LIMIT $3`,
      [before, now, limit, after.checkedAt, after.sessionId],
    ),
  byId: (db: SqlExecutor, sessionId: string) =>
    db.get<OidcSessionRow>('SELECT * FROM oidc_sessions WHERE session_id = $1', [sessionId]),
  /** Moves `checked_at` from `from` to `to`: 0 when another check moved it first. */
  claim: (db: SqlExecutor, sessionId: string, from: number, to: number) =>
    db.run('UPDATE oidc_sessions SET checked_at = $1 WHERE session_id = $2 AND checked_at = $3', [to, sessionId, from]),
  checked: (db: SqlExecutor, sessionId: string, sealedRefreshToken: string | null, at: number) =>
    db.run('UPDATE oidc_sessions SET sealed_refresh_token = $1, checked_at = $2 WHERE session_id = $3', [
      sealedRefreshToken,
      at,
      sessionId,
    ]),
}

export const signInLinks = {
  insert: (db: SqlExecutor, r: { tokenHash: string; userId: string; at: number; expiresAt: number }) =>
    db.run('INSERT INTO sign_in_links (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
      r.tokenHash,
      r.userId,
      r.at,
      r.expiresAt,
    ]),
  /** Takes a link: deleted as it is read, so it works once. */
  take: (db: SqlExecutor, tokenHash: string) =>
    db.get<{ user_id: string; expires_at: number }>(
      'DELETE FROM sign_in_links WHERE token_hash = $1 RETURNING user_id, expires_at',
      [tokenHash],
    ),
}

export const ssoRequirement = {
  /** The names of the person's organizations that require single sign-on. */
  organizationsOf: async (db: SqlExecutor, userId: string) =>
    (
      await db.all<{ name: string }>(
        'SELECT o.name FROM memberships m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = $1 AND o.sso_required = 1 ORDER BY o.name',
        [userId],
      )
    ).map((r) => r.name),
  set: (db: SqlExecutor, organizationId: string, required: boolean) =>
    db.run('UPDATE organizations SET sso_required = $1 WHERE id = $2', [required ? 1 : 0, organizationId]),
  of: async (db: SqlExecutor, organizationId: string) =>
    (await db.get<{ sso_required: number }>('SELECT sso_required FROM organizations WHERE id = $1', [organizationId]))
      ?.sso_required === 1,
}
