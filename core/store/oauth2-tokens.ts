/**
 * Rows of OAuth2 connectors: their tokens (`connector_oauth2_tokens`, sealed by the service) and
 * the authorizations under way (`oauth2_authorizations`). A refresh is leased with a conditional
 * UPDATE, so one process at a time talks to the provider for a connector.
 */
import type { SqlExecutor } from '../ports/store.ts'

export type OAuth2State = 'pending' | 'connected' | 'reconnect_needed'

export interface OAuth2TokenRow {
  connector_id: string
  organization_id: string
  state: OAuth2State
  sealed_access_token: string | null
  sealed_refresh_token: string | null
  /** When the access token expires (ms since the epoch); null when the provider did not say. */
  expires_at: number | null
  scope: string | null
  last_error: string | null
  lease_owner: string | null
  lease_until: number | null
  updated_at: number
}

export interface OAuth2AuthorizationRow {
  state_hash: string
  connector_id: string
  organization_id: string
  sealed_verifier: string
  redirect_uri: string
  created_at: number
}

/** What a token exchange leaves: the new tokens (a refresh token kept when the provider sent none). */
export interface OAuth2Tokens {
  sealed_access_token: string
  sealed_refresh_token: string | null
  expires_at: number | null
  scope: string | null
}

export const oauth2Tokens = {
  byConnector: (db: SqlExecutor, connectorId: string) =>
    db.get<OAuth2TokenRow>('SELECT * FROM connector_oauth2_tokens WHERE connector_id = $1', [connectorId]),

  /** The rows of these connectors (the API's list shows their state). */
  byConnectors: (db: SqlExecutor, connectorIds: readonly string[]) =>
    connectorIds.length === 0
      ? Promise.resolve([])
      : db.all<OAuth2TokenRow>(
          `SELECT * FROM connector_oauth2_tokens WHERE connector_id IN (${connectorIds.map((_, i) => `$${i + 1}`).join(', ')})`,
          [...connectorIds],
        ),

  /** The row of a connector, made `pending` when it has none yet. */
  async ensure(db: SqlExecutor, connectorId: string, organizationId: string, now: number) {
    await db.run(
      `INSERT INTO connector_oauth2_tokens (connector_id, organization_id, state, updated_at) VALUES ($1, $2, 'pending', $3)
       ON CONFLICT (connector_id) DO NOTHING`,
      [connectorId, organizationId, now],
    )
  },

  /** Stores new tokens and marks the connector connected; the lease, if any, is given back. */
  async store(db: SqlExecutor, connectorId: string, tokens: OAuth2Tokens, now: number) {
    await db.run(
      `UPDATE connector_oauth2_tokens SET state = 'connected', sealed_access_token = $1,
         sealed_refresh_token = COALESCE($2, sealed_refresh_token), expires_at = $3, scope = COALESCE($4, scope),
         last_error = NULL, lease_owner = NULL, lease_until = NULL, updated_at = $5
       WHERE connector_id = $6`,
      [tokens.sealed_access_token, tokens.sealed_refresh_token, tokens.expires_at, tokens.scope, now, connectorId],
    )
  },

  /** The provider refused: the tokens are dropped and a person must authorize again. */
  async needReconnect(db: SqlExecutor, connectorId: string, error: string, now: number) {
    await db.run(
      `UPDATE connector_oauth2_tokens SET state = 'reconnect_needed', sealed_access_token = NULL,
         sealed_refresh_token = NULL, expires_at = NULL, last_error = $1, lease_owner = NULL, lease_until = NULL,
         updated_at = $2
       WHERE connector_id = $3`,
      [error, now, connectorId],
    )
  },

  /** Takes the refresh lease; false while another holder's lease is live. */
  async lease(db: SqlExecutor, l: { connectorId: string; owner: string; now: number; until: number }) {
    const row = await db.get<{ connector_id: string }>(
      `UPDATE connector_oauth2_tokens SET lease_owner = $1, lease_until = $2
       WHERE connector_id = $3 AND (lease_until IS NULL OR lease_until < $4)
       RETURNING connector_id`,
      [l.owner, l.until, l.connectorId, l.now],
    )
    return row !== undefined
  },

  /** Gives the lease back, the tokens as they were; `error` notes why a refresh failed. */
  async release(db: SqlExecutor, connectorId: string, owner: string, error: string | null, now: number) {
    await db.run(
      `UPDATE connector_oauth2_tokens SET lease_owner = NULL, lease_until = NULL, last_error = COALESCE($1, last_error),
         updated_at = $2
       WHERE connector_id = $3 AND lease_owner = $4`,
      [error, now, connectorId, owner],
    )
  },
}

export const oauth2Authorizations = {
  async insert(db: SqlExecutor, row: OAuth2AuthorizationRow) {
    await db.run(
      `INSERT INTO oauth2_authorizations (state_hash, connector_id, organization_id, sealed_verifier, redirect_uri, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [row.state_hash, row.connector_id, row.organization_id, row.sealed_verifier, row.redirect_uri, row.created_at],
    )
  },

  /** Takes an authorization out (single use): the row, or undefined when the state is unknown or was used. */
  take: (db: SqlExecutor, stateHash: string) =>
    db.get<OAuth2AuthorizationRow>('DELETE FROM oauth2_authorizations WHERE state_hash = $1 RETURNING *', [stateHash]),

  /** Forgets authorizations started before `before`. */
  async expire(db: SqlExecutor, before: number) {
    await db.run('DELETE FROM oauth2_authorizations WHERE created_at < $1', [before])
  },
}
