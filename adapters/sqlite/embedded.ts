/**
 * The embedded store: one SQLite file in WAL mode.
 *
 * One writer connection commits group-committed batches; when a write fails, its batch is
 * rolled back and its writes run again one by one, so the failing write fails alone while the
 * rest commit. A second connection
 * serves reads, which therefore see committed data only. `synchronous=FULL` (the default)
 * makes every commit durable on power loss; `normal` trades that for speed.
 *
 * The server's store copies the log back into the file on a worker thread (checkpointer.ts),
 * and flushes the log after commits on the runtime's I/O threads instead of inside them
 * (log-sync.ts): a write is still acknowledged only once its commit is on disk.
 *
 * The file uses incremental auto_vacuum, so pruned rows give their pages back to the file
 * system (`compact`). A file made before that setting is converted once, when it is opened,
 * by a VACUUM that rewrites it (it needs free disk space as large as the file for a moment).
 *
 * A full disk refuses writes, not the store (disk-full.ts): every write of a batch that found
 * the disk full fails at once with StoreFullError (a 503 with Retry-After), reads go on, `ping`
 * fails until two seconds pass without a refusal (so /readyz says so), and the next write after
 * space is freed commits.
 */
import type { SqliteDatabase, SqliteDriver, SqliteStatement } from './driver.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { Migration, SqlExecutor, SqlValue, Store } from '../../core/ports/store.ts'
import { bindable, createGroupCommit, type Job, numberedToQuestion } from '../sql/group-commit.ts'
import { type Checkpointer, startCheckpointer } from './checkpointer.ts'
import { createLogSync, type Flusher, type LogSync, walFlusher } from './log-sync.ts'
import { asDiskFull, createDiskFullReport } from './disk-full.ts'

export interface SqliteStoreOptions {
  /** A file path; the directory must exist. */
  readonly path: string
  readonly synchronous?: 'full' | 'normal'
  readonly busyTimeoutMs?: number
  /** Checkpoints on a worker thread instead of in the committing call (the server's store; see checkpointer.ts). */
  readonly backgroundCheckpoint?: boolean
  /**
   * With `synchronous` full: flushes the log after commits, off the event loop's thread, and
   * acknowledges each write once a flush that began after its commit has finished (log-sync.ts).
   */
  readonly backgroundSync?: boolean
  /** What flushes the log for `backgroundSync` (the `-wal` file's; tests hold flushes back with their own). */
  readonly logFlusher?: Flusher
  /** Where a full disk and the checkpoint thread are reported (without it, the checkpoint thread writes to the console). */
  readonly logger?: Logger
}

/** The store over one SQLite file, whichever runtime's SQLite `driver` opens it with. */
export function embeddedSqliteStore(options: SqliteStoreOptions, driver: SqliteDriver): Store {
  const logSync: LogSync | undefined =
    options.backgroundSync && options.synchronous !== 'normal'
      ? createLogSync(options.logFlusher ?? walFlusher(options.path))
      : undefined
  // The writer's commits leave the flush to logSync; the checkpoints it makes still flush.
  const writer = open(driver, logSync ? { ...options, synchronous: 'normal' } : options, false)
  const reader = open(driver, options, true)
  const writeExec = executor(writer, asDiskFull)
  const readExec = executor(reader)
  const checkpointer: Checkpointer | undefined = options.backgroundCheckpoint
    ? startCheckpointer({
        path: options.path,
        synchronous: options.synchronous === 'normal' ? 'NORMAL' : 'FULL',
        logger: options.logger,
      })
    : undefined
  const diskFull = createDiskFullReport(options.path, options.logger)

  /** Runs jobs in one transaction; throws (after rolling back) when any job fails. */
  async function inOneTransaction(jobs: Job<SqlExecutor>[]): Promise<unknown[]> {
    writer.run('BEGIN IMMEDIATE')
    try {
      const values: unknown[] = []
      for (const job of jobs) values.push(await job.work(writeExec))
      writer.run('COMMIT')
      checkpointer?.committed()
      diskFull.committed()
      return values
    } catch (error) {
      if (writer.inTransaction) writer.run('ROLLBACK')
      throw asDiskFull(error)
    }
  }

  const commits = createGroupCommit<SqlExecutor>({
    maxInFlight: 1,
    maxBatch: 4096,
    // Optimistic: the whole batch in one transaction. When a write fails, the batch is rolled
    // back and each write runs again alone, so only the failing one fails. Writes are pure
    // database work, so running one again is safe; failures are rare (duplicates are mostly
    // caught with ON CONFLICT), so the common path pays no savepoint per write.
    async runBatch(jobs) {
      let values: unknown[]
      try {
        values = await inOneTransaction(jobs)
      } catch (error) {
        // A full disk refuses every write alike: running them again one by one would only fail each.
        if (diskFull.refused(error, jobs.length) || jobs.length === 1) return jobs.forEach((job) => job.reject(error))
        for (const job of jobs) {
          await inOneTransaction([job]).then(
            ([value]) => durable(() => job.resolve(value), job.reject),
            (failure) => {
              diskFull.refused(failure, 1)
              job.reject(failure)
            },
          )
        }
        return
      }
      durable(
        () => jobs.forEach((job, i) => job.resolve(values[i])),
        (error) => jobs.forEach((job) => job.reject(error)),
      )
    },
  })

  /** Acknowledges what was just committed: at once, or once the log's flush covers it. */
  function durable(done: () => void, failed: (error: unknown) => void) {
    if (!logSync) return done()
    logSync.after(done, (error) => {
      const failure = asDiskFull(error)
      diskFull.refused(failure, 1)
      failed(failure)
    })
  }

  let closed = false
  return {
    dialect: 'sqlite',
    all: readExec.all,
    get: readExec.get,
    run: (sql, params) => commits.submit((tx) => tx.run(sql, params)),
    write: (work) => commits.submit(work),
    async migrate(migrations) {
      return commits.submit((tx) => applyMigrations(tx, migrations))
    },
    async compact() {
      await commits.submit(async () => {
        // Keeps a tenth of the file free for the writes to come; the rest goes back to the disk.
        const free = (writer.query('PRAGMA freelist_count').get() as { freelist_count: number }).freelist_count
        const pages = (writer.query('PRAGMA page_count').get() as { page_count: number }).page_count
        const surplus = free - Math.floor(pages / 10)
        if (surplus > 0) writer.query(`PRAGMA incremental_vacuum(${surplus})`).all()
      })
      // The file shrinks when the log is copied back into it. A passive checkpoint waits for no
      // reader; between two batches no transaction is open on the writer.
      if (!writer.inTransaction) writer.query('PRAGMA wal_checkpoint(PASSIVE)').get()
    },
    async ping() {
      reader.query('SELECT 1').get()
      const full = diskFull.current()
      if (full) throw full
    },
    async close() {
      if (closed) return
      closed = true
      await commits.drain()
      await logSync?.close()
      await checkpointer?.stop()
      // Worth having, not worth failing a close for (it writes, and the disk may be full).
      try {
        writer.run('PRAGMA optimize')
      } catch {}
      reader.close()
      writer.close()
    },
  }
}

function open(driver: SqliteDriver, options: SqliteStoreOptions, forReads: boolean): SqliteDatabase {
  const db = driver.open(options.path)
  db.run(`PRAGMA busy_timeout = ${options.busyTimeoutMs ?? 5000}`)
  if (!forReads) useIncrementalVacuum(db)
  db.run('PRAGMA journal_mode = WAL')
  // After a checkpoint the write-ahead log shrinks back to this size instead of keeping its peak.
  db.run('PRAGMA journal_size_limit = 67108864')
  db.run(`PRAGMA synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`)
  db.run('PRAGMA foreign_keys = ON')
  db.run('PRAGMA temp_store = MEMORY')
  // Pages SQLite keeps itself, per connection (4 MB): the operating system's page cache holds the
  // rest of the file, and a larger cache measured no faster while costing resident memory.
  db.run('PRAGMA cache_size = -4000')
  if (forReads) db.run('PRAGMA query_only = ON')
  return db
}

/**
 * Sets incremental auto_vacuum. A new file takes it at once; an existing file only through one
 * VACUUM, done here before anything else uses the file.
 */
function useIncrementalVacuum(db: SqliteDatabase): void {
  const INCREMENTAL = 2
  if ((db.query('PRAGMA auto_vacuum').get() as { auto_vacuum: number }).auto_vacuum === INCREMENTAL) return
  db.run('PRAGMA auto_vacuum = INCREMENTAL')
  const tables = (db.query('SELECT COUNT(*) AS n FROM sqlite_schema').get() as { n: number }).n
  if (tables > 0) db.run('VACUUM')
}

/** `failure` turns what a statement throws into what the store's callers see (the writer's: a full disk). */
function executor(db: SqliteDatabase, failure: (error: unknown) => unknown = (error) => error): SqlExecutor {
  const statements = new Map<string, SqliteStatement>()
  const prepare = (sql: string) => {
    let stmt = statements.get(sql)
    if (!stmt) {
      stmt = db.prepare(numberedToQuestion(sql))
      statements.set(sql, stmt)
    }
    return stmt
  }
  const args = (params?: readonly SqlValue[]) => (params ? (bindable(params) as never[]) : [])
  return {
    dialect: 'sqlite',
    async all<T>(sql: string, params?: readonly SqlValue[]) {
      try {
        return prepare(sql).all(...args(params)) as T[]
      } catch (error) {
        throw failure(error)
      }
    },
    async get<T>(sql: string, params?: readonly SqlValue[]) {
      try {
        return (prepare(sql).get(...args(params)) ?? undefined) as T | undefined
      } catch (error) {
        throw failure(error)
      }
    },
    async run(sql: string, params?: readonly SqlValue[]) {
      try {
        return Number(prepare(sql).run(...args(params)).changes)
      } catch (error) {
        throw failure(error)
      }
    },
  }
}

async function applyMigrations(tx: SqlExecutor, migrations: readonly Migration[]): Promise<number> {
  await tx.run(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
  )
  const done = new Set(
    (await tx.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version),
  )
  let applied = 0
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (done.has(m.version)) continue
    const statements = Array.isArray(m.up) ? m.up : (m.up as { sqlite: readonly string[] }).sqlite
    for (const statement of statements) await tx.run(statement)
    await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
      m.version,
      m.name,
      Date.now(),
    ])
    applied++
  }
  return applied
}
