/**
 * A consistent copy of a live SQLite database: `VACUUM INTO` reads one snapshot (a read
 * transaction, which WAL mode lets run beside the writer) and writes it compacted to a new
 * file. The serving process is not paused; writes committed after the snapshot began are not in it.
 */
import { Database } from 'bun:sqlite'
import { SEALING_KEY } from '../../core/store/installation-settings.ts'

export function snapshotSqlite(source: string, target: string): { sealingKeyId: string | null } {
  const db = new Database(source, { readonly: true })
  try {
    db.run('PRAGMA busy_timeout = 10000')
    db.query('VACUUM INTO ?').run(target)
  } finally {
    db.close()
  }
  const copy = new Database(target, { readonly: true })
  try {
    const row = copy.query('SELECT value FROM installation_settings WHERE name = ?').get(SEALING_KEY) as {
      value: string
    } | null
    return { sealingKeyId: row?.value ?? null }
  } catch {
    return { sealingKeyId: null }
  } finally {
    copy.close()
  }
}
