/** The snapshot of a live database for `backup create` on Bun: `bun:sqlite` opens it read-only. */
import { Database } from 'bun:sqlite'
import { type ReadOnlySqlite, snapshotSqlite } from './backup.ts'

function openReadOnly(path: string): ReadOnlySqlite {
  const db = new Database(path, { readonly: true })
  return { exec: (sql) => db.run(sql), prepare: (sql) => db.query(sql), close: () => db.close() }
}

export const snapshotOnBun = (source: string, target: string) => snapshotSqlite(openReadOnly, source, target)
