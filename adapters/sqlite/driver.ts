/**
 * The part of a runtime's SQLite binding the embedded store uses: Bun's `bun:sqlite` and
 * `node:sqlite` (Deno, Node) both provide it, over the same SQLite file format. It opens files
 * and runs statements; the store's rules (WAL, durability, group commit) stay in embedded.ts.
 */

/** A prepared statement: `?` placeholders, values bound in order. */
export interface SqliteStatement {
  all(...params: never[]): unknown[]
  /** The first row; none is `null` or `undefined` depending on the binding. */
  get(...params: never[]): unknown
  run(...params: never[]): { changes: number | bigint }
}

export interface SqliteDatabase {
  /** Runs one statement that returns nothing (a PRAGMA, BEGIN, COMMIT). */
  run(sql: string): unknown
  query(sql: string): { get(): unknown; all(): unknown[] }
  prepare(sql: string): SqliteStatement
  readonly inTransaction: boolean
  close(): void
}

/** Opens (creating when missing) the SQLite file at a path. */
export interface SqliteDriver {
  open(path: string): SqliteDatabase
}
