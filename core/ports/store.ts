/**
 * The store port: a small SQL executor that both storage adapters implement.
 *
 * Repositories in `core/store` are written once, in portable SQL, against this port:
 * placeholders are `$1, $2, …`, timestamps are integer milliseconds, flags are integers,
 * JSON is text. Dialect-specific clauses are chosen with `store.dialect`.
 *
 * It does not model connections, pools or drivers: those stay inside the adapters.
 */

export type SqlValue = string | number | boolean | null | bigint
export type Row = Record<string, unknown>

/** A statement that returns no rows, with its parameters ($1, $2, …), to be run later or with others. */
export interface Statement {
  readonly sql: string
  readonly params: readonly SqlValue[]
}

export interface SqlExecutor {
  /** Every row of a query. */
  all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>
  /** The first row of a query, or undefined. */
  get<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>
  /** A statement that returns no rows; resolves to the number of rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>
  /** True inside a concurrent write (see `WriteOptions`): its statements interleave with others'. */
  readonly concurrent?: boolean
  /** The database's dialect, also inside a transaction (a statement may need the dialect's own form). */
  readonly dialect: Dialect
}

export interface WriteOptions {
  /**
   * The write may run at the same time as the other concurrent writes of its batch, in the same
   * transaction, their statements interleaved (pipelined on one Postgres connection, so a batch
   * costs a few round trips instead of one per statement). The work promises that it reads
   * nothing another write of the batch changes on the strength of that read: each statement is
   * atomic, and a unique key two writes both claim fails the batch, whose writes then run again
   * one at a time. A work that must lock a row calls `serialOnly(tx)` first, which sends it back
   * to run after the concurrent part. SQLite runs every write in turn and ignores the option.
   */
  readonly concurrent?: boolean
  /**
   * The write commits apart from the others: in a transaction of its own line of batches, on
   * another connection, at the same time as the journal's. For writes that share no row with
   * other writes of the process and need no order with them (the hook outbox's claims and
   * outcomes), so neither line waits for the other's commits. SQLite has one writer and ignores it.
   */
  readonly apart?: boolean
}

/** Thrown by `serialOnly` inside a concurrent write: the store runs that write again in turn. */
export class SerialRequired extends Error {
  constructor() {
    super('this write locks rows: it runs in turn, not concurrently')
  }
}

/** Call before reading a row to change it (`FOR UPDATE`): a concurrent write would not be protected by the lock. */
export function serialOnly(tx: SqlExecutor): void {
  if (tx.concurrent) throw new SerialRequired()
}

export type Dialect = 'sqlite' | 'postgres'

export interface Migration {
  readonly version: number
  readonly name: string
  /** Statements for both dialects, or one list per dialect where they differ. */
  readonly up: readonly string[] | { readonly sqlite: readonly string[]; readonly postgres: readonly string[] }
}

/**
 * Reads on the store itself see committed data only.
 *
 * `write` runs `work` inside a transaction. Writes submitted in the same tick are committed
 * together (group commit): one durable commit for the batch, while each `work` keeps its own
 * all-or-nothing outcome. `work` must only touch the executor it is given — no network calls,
 * no timers — because it may share a transaction with others and may be run a second time
 * after a batch fails.
 */
export interface Store extends SqlExecutor {
  readonly dialect: Dialect
  write<T>(work: (tx: SqlExecutor) => Promise<T>, options?: WriteOptions): Promise<T>
  /** Applies the migrations not yet applied, in order; safe when several processes start at once. */
  migrate(migrations: readonly Migration[]): Promise<number>
  /**
   * Gives the space of deleted rows back to the file system where the database needs asking:
   * SQLite frees its free pages (incremental auto_vacuum); on Postgres autovacuum does it.
   */
  compact(): Promise<void>
  /** Throws when the database cannot be reached. */
  ping(): Promise<void>
  /** Flushes pending writes and releases connections. */
  close(): Promise<void>
}

/**
 * The row-lock clause for a read that a write in the same transaction depends on.
 * Postgres runs concurrent batches at READ COMMITTED, so such reads need `FOR UPDATE`;
 * SQLite has a single writer and no such clause. Prefer one conditional UPDATE when it can say
 * the whole rule (`SET n = n - 1 WHERE n > 0`).
 */
export function forUpdate(dialect: Dialect): string {
  return dialect === 'postgres' ? ' FOR UPDATE' : ''
}

/** True when an error is a unique-constraint violation, in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null
  if (!e) return false
  if (e.code === '23505') return true
  return typeof e.message === 'string' && e.message.includes('UNIQUE constraint failed')
}
