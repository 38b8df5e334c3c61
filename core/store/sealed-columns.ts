/**
 * Every column that holds a value sealed with the master key (the secret box). Key rotation
 * (`automaton master-key rotate`) re-seals exactly these, so a branch that adds a sealed column
 * appends it here, and the rotation test checks that the old key opens none of them.
 * Each table needs a single-column key.
 */
import type { SqlExecutor } from '../ports/store.ts'

export interface SealedColumn {
  readonly table: string
  /** The table's key column, used to page through it and to update one row. */
  readonly key: string
  readonly column: string
  /** Only the rows this fixed condition picks hold sealed values (a column shared with plain values). */
  readonly where?: string
}

export const SEALED_COLUMNS: SealedColumn[] = [
  { table: 'connectors', key: 'id', column: 'sealed_secrets' },
  { table: 'organizations', key: 'id', column: 'webhook_secret' },
  { table: 'hook_endpoints', key: 'id', column: 'secret' },
  { table: 'hook_endpoints', key: 'id', column: 'previous_secret' },
  { table: 'workflows', key: 'id', column: 'sealed_props' },
  { table: 'wallets', key: 'id', column: 'sealed_key' },
  { table: 'agent_runs', key: 'run_id', column: 'sealed_key' },
  { table: 'agent_cards', key: 'id', column: 'sealed_details' },
  { table: 'oidc_providers', key: 'name', column: 'sealed_client_secret' },
  { table: 'oidc_sessions', key: 'session_id', column: 'sealed_refresh_token' },
  { table: 'oidc_authorizations', key: 'state_hash', column: 'sealed_verifier' },
  { table: 'trigger_subscriptions', key: 'id', column: 'sealed_store' },
  { table: 'connector_oauth2_tokens', key: 'connector_id', column: 'sealed_access_token' },
  { table: 'connector_oauth2_tokens', key: 'connector_id', column: 'sealed_refresh_token' },
  { table: 'oauth2_authorizations', key: 'state_hash', column: 'sealed_verifier' },
  // The audit chain's HMAC key is one installation setting among plain ones.
  { table: 'installation_settings', key: 'name', column: 'value', where: "name = 'audit_key'" },
]

export const sealedValues = {
  /** A column's sealed values in key order, after `after` (null: from the first), at most `limit` (null: all). */
  page: (db: SqlExecutor, column: SealedColumn, after: string | null, limit: number | null) =>
    db.all<{ k: string; v: string }>(
      `SELECT ${column.key} AS k, ${column.column} AS v FROM ${column.table} WHERE ${column.column} IS NOT NULL${column.where ? ` AND ${column.where}` : ''}${after === null ? '' : ` AND ${column.key} > $1`}
       ORDER BY ${column.key}${limit === null ? '' : ` LIMIT ${limit}`}`,
      after === null ? [] : [after],
    ),
  /** Replaces one row's sealed value, only while it is still `from`: 1 when replaced. */
  replace: (tx: SqlExecutor, column: SealedColumn, key: string, from: string, to: string) =>
    tx.run(`UPDATE ${column.table} SET ${column.column} = $1 WHERE ${column.key} = $2 AND ${column.column} = $3`, [
      to,
      key,
      from,
    ]),
}
