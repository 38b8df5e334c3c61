/**
 * The Postgres store (postgres.js, pooled).
 *
 * Writes are group-committed: one batch per process commits at a time, and writes arriving
 * meanwhile form the next batch (one batch at a time keeps the writes of one process from
 * deadlocking each other). Writes kept apart (`WriteOptions.apart`: the hook outbox's leases and
 * outcomes, which share no row with the others) have a line of batches of their own, so they
 * neither wait for the journal's commits nor hold them up. A batch is one transaction, in which concurrent writes (the hot ones:
 * admissions and journal writes) run at once, pipelined; if any write in it fails, the batch is
 * rolled back and each of its writes is retried alone, so one bad write never takes others with
 * it — a deadlock with another process included. Migrations run under an advisory lock, so
 * processes starting together apply each migration once.
 *
 * While the database cannot be reached, queries fail at once with StoreUnavailableError (a 503)
 * rather than waiting for a connection, and reconnections back off (availability.ts).
 */
import postgres from 'postgres'
import { badRequest, StoreUnavailableError } from '../../core/errors.ts'
import type { Logger } from '../../core/ports/logger.ts'
import { type Migration, SerialRequired, type SqlExecutor, type SqlValue, type Store } from '../../core/ports/store.ts'
import { bindable, createGroupCommit, type Job } from '../sql/group-commit.ts'
import { type Availability, createAvailability } from './availability.ts'

export interface PostgresStoreOptions {
  readonly url: string
  readonly poolSize?: number
  readonly applicationName?: string
  /** Says when the database becomes unreachable and when it answers again. */
  readonly logger?: Logger
}

const MIGRATION_LOCK = 72_410_001
/**
 * Seconds a new connection may take (TCP, TLS, authentication) before the attempt counts as
 * failed: a database that does not answer is then known down within this, not after the
 * driver's default of 30 s. Connections are opened rarely (a pool, kept for a minute idle).
 */
const CONNECT_TIMEOUT_S = 2

export function postgresStore(options: PostgresStoreOptions): Store {
  const poolSize = options.poolSize ?? 10
  const connection = { application_name: options.applicationName ?? 'automaton' }
  const sql = postgres(options.url, {
    max: poolSize,
    onnotice: () => {},
    prepare: true,
    // No array types to learn: no statement binds or reads an array (lists travel as JSON). The
    // driver's own query for them, sent on every new connection, is a promise nobody awaits: a
    // connection reset while it was under way surfaced as an unhandled rejection (ECONNRESET).
    fetch_types: false,
    idle_timeout: 60,
    connect_timeout: CONNECT_TIMEOUT_S,
    // Immediately while the database answers; while it is known down, the probe's growing pause.
    backoff: () => availability.reconnectDelaySeconds(),
    connection,
    types: {
      // int8 (BIGINT, COUNT) as a JS number: every value we store fits in 53 bits.
      bigint: { to: 20, from: [20], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
    },
  })
  const probe = createProbe(options.url, connection)
  const availability = createAvailability({ probe: probe.run, logger: options.logger, classify: classifyFailure })
  const pool = executor(sql, availability, { admitted: true })
  const fail = failure(availability)

  /**
   * One transaction for a batch. Concurrent jobs run first, all at once: their statements are
   * pipelined on the transaction's connection, so the batch waits for about as many round trips
   * as its longest job has statements. The other jobs follow one at a time.
   */
  async function inOneTransaction(jobs: readonly Job<SqlExecutor>[]): Promise<unknown[]> {
    return (await availability
      .admit((started) =>
        sql.begin(async (tx) => {
          // Refused while it waited for a connection (its jobs were told 503): it writes nothing.
          if (!started()) throw new StoreUnavailableError(null)
          const out: unknown[] = new Array(jobs.length)
          const shared = executor(tx as unknown as postgres.Sql, availability, { concurrent: true })
          // Each work starts on a promise, so one that throws at once is settled like the others.
          const together = await Promise.allSettled(
            jobs.map((job, i) =>
              job.concurrent
                ? Promise.resolve()
                    .then(() => job.work(shared))
                    .then(
                      (value) => {
                        out[i] = value
                      },
                      (error) => {
                        if (error instanceof SerialRequired) job.concurrent = false
                        throw error
                      },
                    )
                : undefined,
            ),
          )
          const failed = together.find((r) => r.status === 'rejected')
          if (failed) throw (failed as PromiseRejectedResult).reason
          const alone = executor(tx as unknown as postgres.Sql, availability)
          for (let i = 0; i < jobs.length; i++) if (!jobs[i].concurrent) out[i] = await jobs[i].work(alone)
          return out
        }),
      )
      .catch(fail)) as unknown[]
  }

  async function runBatch(jobs: Job<SqlExecutor>[]): Promise<void> {
    const concurrent = jobs.filter((job) => job.concurrent).length
    let values: unknown[]
    try {
      values = await inOneTransaction(jobs)
    } catch (error) {
      // The connection went away: the batch may have committed, so none of it runs again.
      if (error instanceof StoreUnavailableError) return jobs.forEach((job) => job.reject(error))
      // A concurrent job that must lock rows was switched to run in turn: the batch runs again.
      const retry = jobs.filter((job) => job.concurrent).length < concurrent
      try {
        if (!retry) throw error
        values = await inOneTransaction(jobs)
      } catch (again) {
        if (jobs.length === 1 || again instanceof StoreUnavailableError) return jobs.forEach((job) => job.reject(again))
        for (const job of jobs) {
          job.concurrent = false
          await inOneTransaction([job]).then(([value]) => job.resolve(value), job.reject)
        }
        return
      }
    }
    jobs.forEach((job, i) => job.resolve(values[i]))
  }

  // Two lines of batches, each one batch at a time: the journal's, and the writes kept apart from it.
  const commits = createGroupCommit<SqlExecutor>({ maxInFlight: 1, maxBatch: 1024, runBatch })
  const apartCommits = createGroupCommit<SqlExecutor>({ maxInFlight: 1, maxBatch: 1024, runBatch })

  let closed = false
  return {
    dialect: 'postgres',
    all: pool.all,
    get: pool.get,
    run: (text, params) => commits.submit((tx) => tx.run(text, params)),
    write: (work, options) => (options?.apart ? apartCommits : commits).submit(work, options?.concurrent === true),
    migrate: (migrations) => applyMigrations(sql, migrations),
    // Autovacuum makes the space of deleted rows reusable; the tables stop growing at a steady load.
    async compact() {},
    // Refused at once while the database is known down: readiness answers without waiting.
    async ping() {
      await pool.get('SELECT 1')
    },
    async close() {
      if (closed) return
      closed = true
      await Promise.all([commits.drain(), apartCommits.drain()])
      availability.close()
      await Promise.all([sql.end({ timeout: 5 }), probe.end()])
    },
  }
}

/**
 * Statements on the pool (`admitted`: refused at once while the database is known down) or on a
 * transaction's connection, whose failures tell the availability what happened.
 */
function executor(
  sql: postgres.Sql,
  availability?: Availability,
  how: { concurrent?: boolean; admitted?: boolean } = {},
): SqlExecutor {
  const concurrent = how.concurrent === true
  const send = (text: string, params?: readonly SqlValue[]) =>
    sql.unsafe(text, (params ? bindable(params) : []) as postgres.ParameterOrJSON<never>[], { prepare: true })
  const fail = failure(availability)
  const query = (text: string, params?: readonly SqlValue[]) =>
    (how.admitted && availability ? availability.admit(() => send(text, params)) : send(text, params)).catch(fail)
  return {
    concurrent,
    dialect: 'postgres',
    async all<T>(text: string, params?: readonly SqlValue[]) {
      return [...(await query(text, params))] as T[]
    },
    async get<T>(text: string, params?: readonly SqlValue[]) {
      return (await query(text, params))[0] as T | undefined
    },
    async run(text: string, params?: readonly SqlValue[]) {
      return (await query(text, params)).count
    },
  }
}

async function applyMigrations(sql: postgres.Sql, migrations: readonly Migration[]): Promise<number> {
  return (await sql.begin(async (tx) => {
    const exec = executor(tx as unknown as postgres.Sql)
    await exec.run(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`)
    await exec.run(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
    )
    const done = new Set(
      (await exec.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version),
    )
    let applied = 0
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue
      const statements = Array.isArray(m.up) ? m.up : (m.up as { postgres: readonly string[] }).postgres
      for (const statement of statements) await tx.unsafe(statement)
      await exec.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        m.version,
        m.name,
        Date.now(),
      ])
      applied++
    }
    return applied
  })) as number
}

/** Server codes that mean the connection is gone: shutdown, crash, not accepting, connection exceptions. */
const GONE = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006'])

/** A lost, refused or timed-out connection (the driver's CONNECT… codes, the socket's E… codes). */
function isConnectionFailure(error: unknown): boolean {
  if (error instanceof postgres.PostgresError) return GONE.has(error.code)
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && (code.startsWith('CONNECT') || /^E[A-Z]+$/.test(code))
}

/**
 * Failures of a new connection: refused, unresolvable, timed out, or the server saying it takes
 * none now (starting up, shutting down). Other connection failures are lost connections.
 */
const CANNOT_CONNECT = new Set([
  'ECONNREFUSED',
  'CONNECT_TIMEOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ETIMEDOUT',
  '57P03',
  '08001',
  '08004',
])
function classifyFailure(error: unknown): 'connect' | 'lost' | null {
  if (!isConnectionFailure(error)) return null
  return CANNOT_CONNECT.has((error as { code: string }).code) ? 'connect' : 'lost'
}

/**
 * One connection apart from the pool, whose connections may all be waiting to reconnect, and a
 * trivial query on it. A probe that outlasts a connection attempt (a connection that went silent)
 * is given up, and its connection with it: the next probe connects anew.
 */
function createProbe(url: string, connection: Record<string, string>) {
  const open = () =>
    postgres(url, {
      max: 1,
      onnotice: () => {},
      fetch_types: false,
      idle_timeout: 1,
      connect_timeout: CONNECT_TIMEOUT_S,
      backoff: () => 0,
      connection,
    })
  let sql = open()
  return {
    run(): Promise<unknown> {
      let timer: ReturnType<typeof setTimeout> | undefined
      return Promise.race([
        sql.unsafe('SELECT 1').then((rows) => rows),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => {
              void sql.end({ timeout: 0 }).catch(() => {})
              sql = open()
              reject(Object.assign(new Error('the database did not answer the probe'), { code: 'CONNECT_TIMEOUT' }))
            },
            (CONNECT_TIMEOUT_S + 1) * 1000,
          )
        }),
      ]).finally(() => clearTimeout(timer))
    },
    end: () => sql.end({ timeout: 1 }),
  }
}

/**
 * Values Postgres cannot take where SQLite does: text holding NUL, a number past its column's
 * range. They come from a client's input, so they answer 400 rather than failing as a bug.
 */
const REFUSED_VALUES: Readonly<Record<string, string>> = {
  '22021': 'text must not contain NUL (\\u0000) characters',
  '22P05': 'text must not contain NUL (\\u0000) characters',
  '22003': 'a number is out of range',
}

/**
 * Tells the availability of a failure, and rethrows a connection failure as the 503 a client
 * should retry, a value Postgres refuses as a 400.
 */
function failure(availability?: Availability) {
  return (error: unknown): never => {
    availability?.observe(error)
    if (isConnectionFailure(error)) throw new StoreUnavailableError(error)
    const refused = error instanceof postgres.PostgresError ? REFUSED_VALUES[error.code] : undefined
    throw refused ? badRequest(refused) : error
  }
}
