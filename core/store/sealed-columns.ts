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
]

export const sealedValues = {
  /** A column's sealed values in key order, after `after` (null: from the first), at most `limit` (null: all). */
  page: (db: SqlExecutor, column: SealedColumn, after: string | null, limit: number | null) =>
    db.all<{ k: string; v: string }>(
      `SELECT ${column.key} AS k, ${column.column} AS v FROM ${column.table} WHERE ${column.column} IS NOT NULL${after === null ? '' : ` AND ${column.key} > $1`}
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
