/** Facts about the installation as a whole, one row per name (`installation_settings`). */
import type { SqlExecutor } from '../ports/store.ts'

/** The id of the master key that seals new secrets (see core/security/secret-box.ts). */
export const SEALING_KEY = 'sealing_key_id'

export const installationSettings = {
  async get(db: SqlExecutor, name: string): Promise<string | null> {
    return (
      (await db.get<{ value: string }>('SELECT value FROM installation_settings WHERE name = $1', [name]))?.value ??
      null
    )
  },
  set(tx: SqlExecutor, name: string, value: string, at: number) {
    return tx.run(
      'INSERT INTO installation_settings (name, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
      [name, value, at],
    )
  },
  /** Sets the value only when none is set yet. */
  setIfAbsent(tx: SqlExecutor, name: string, value: string, at: number) {
    return tx.run(
      'INSERT INTO installation_settings (name, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
      [name, value, at],
    )
  },
}
