/**
 * The embedded store on Deno: embedded.ts over `node:sqlite`, the same file format and the same
 * durability settings as Bun's. The log is copied back into the file by SQLite's own automatic
 * checkpoints (the checkpoint thread, checkpointer.ts, is Bun's).
 */
import { DatabaseSync } from 'node:sqlite'
import type { Store } from '../../core/ports/store.ts'
import type { SqliteDatabase, SqliteDriver } from './driver.ts'
import { embeddedSqliteStore, type SqliteStoreOptions } from './embedded.ts'

function openNodeSqlite(path: string): SqliteDatabase {
  const db = new DatabaseSync(path)
  return {
    run: (sql) => db.exec(sql),
    query: (sql) => db.prepare(sql),
    prepare: (sql) => db.prepare(sql) as never,
    get inTransaction() {
      return db.isTransaction
    },
    close: () => db.close(),
  }
}

const nodeSqlite: SqliteDriver = { open: openNodeSqlite }

export function nodeSqliteStore(options: SqliteStoreOptions): Store {
  return embeddedSqliteStore({ ...options, backgroundCheckpoint: false }, nodeSqlite)
}
