/**
 * Every column that holds a value sealed with the master key (the secret box). Key rotation
 * (`automaton master-key rotate`) re-seals exactly these, so a branch that adds a sealed column
 * appends it here, and the rotation test checks that the old key opens none of them.
 * Each table needs a single-column key.
 */
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
