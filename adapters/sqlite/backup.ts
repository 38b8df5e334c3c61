/**
 * A consistent copy of a live SQLite database: `VACUUM INTO` reads one snapshot (a read
 * transaction, which WAL mode lets run beside the writer) and writes it compacted to a new
 * file. The serving process is not paused; writes committed after the snapshot began are not in it.
 * The same on Bun (`bun:sqlite`) and Deno (`node:sqlite`): each runtime's binding opens the file
 * read-only (backup-bun.ts, backup-node.ts).
 */
import { SEALING_KEY } from '../../core/store/installation-settings.ts'

/** A read-only connection to a SQLite file, as each runtime's binding provides it. */
export interface ReadOnlySqlite {
  /** Runs one statement that returns nothing (a PRAGMA). */
  exec(sql: string): unknown
  prepare(sql: string): { run(...params: string[]): unknown; get(...params: string[]): unknown }
  close(): void
}

/** Copies `source` consistently to `target`; tells which master key seals the copy's secrets. */
export function snapshotSqlite(
  openReadOnly: (path: string) => ReadOnlySqlite,
  source: string,
  target: string,
): { sealingKeyId: string | null } {
  const db = openReadOnly(source)
  try {
    db.exec('PRAGMA busy_timeout = 10000')
    db.prepare('VACUUM INTO ?').run(target)
  } finally {
    db.close()
  }
  const copy = openReadOnly(target)
  try {
    const row = copy.prepare('SELECT value FROM installation_settings WHERE name = ?').get(SEALING_KEY) as
      | { value: string }
      | null
      | undefined
    return { sealingKeyId: row?.value ?? null }
  } catch {
    return { sealingKeyId: null }
  } finally {
    copy.close()
  }
}
