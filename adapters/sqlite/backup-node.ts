/** The snapshot of a live database for `backup create` on Deno (and Node): `node:sqlite` opens it read-only. */
import { DatabaseSync } from 'node:sqlite'
import { type ReadOnlySqlite, snapshotSqlite } from './backup.ts'

function openReadOnly(path: string): ReadOnlySqlite {
  const db = new DatabaseSync(path, { readOnly: true })
  return { exec: (sql) => db.exec(sql), prepare: (sql) => db.prepare(sql), close: () => db.close() }
}

export const snapshotOnNode = (source: string, target: string) => snapshotSqlite(openReadOnly, source, target)
