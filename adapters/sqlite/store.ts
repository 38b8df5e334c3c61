/**
 * The embedded store on Bun: embedded.ts over `bun:sqlite`. Deno opens the same file through
 * `node:sqlite` (node-store.ts).
 */
import { Database } from 'bun:sqlite'
import type { Store } from '../../core/ports/store.ts'
import type { SqliteDriver } from './driver.ts'
import { embeddedSqliteStore, type SqliteStoreOptions } from './embedded.ts'

export type { SqliteStoreOptions } from './embedded.ts'

const bunSqlite: SqliteDriver = { open: (path) => new Database(path, { create: true }) }

export function sqliteStore(options: SqliteStoreOptions): Store {
  return embeddedSqliteStore(options, bunSqlite)
}
