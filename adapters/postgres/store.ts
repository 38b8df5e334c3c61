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
 */
import postgres from 'postgres'
import { type Migration, SerialRequired, type SqlExecutor, type SqlValue, type Store } from '../../core/ports/store.ts'
import { bindable, createGroupCommit, type Job } from '../sql/group-commit.ts'

export interface PostgresStoreOptions {
  readonly url: string
  readonly poolSize?: number
  readonly applicationName?: string
}

const MIGRATION_LOCK = 72_410_001

export function postgresStore(options: PostgresStoreOptions): Store {
  const poolSize = options.poolSize ?? 10
  const sql = postgres(options.url, {
    max: poolSize,
    onnotice: () => {},
    prepare: true,
    idle_timeout: 60,
    connection: { application_name: options.applicationName ?? 'automaton' },
    types: {
      // int8 (BIGINT, COUNT) as a JS number: every value we store fits in 53 bits.
      bigint: { to: 20, from: [20], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
    },
  })
  const pool = executor(sql)

  /**
   * One transaction for a batch. Concurrent jobs run first, all at once: their statements are
   * pipelined on the transaction's connection, so the batch waits for about as many round trips
   * as its longest job has statements. The other jobs follow one at a time.
   */
  async function inOneTransaction(jobs: readonly Job<SqlExecutor>[]): Promise<unknown[]> {
    return (await sql.begin(async (tx) => {
      const out: unknown[] = new Array(jobs.length)
      const shared = executor(tx as unknown as postgres.Sql, true)
      // Each work starts on a promise, so one that throws at once is settled like the others.
      const together = await Promise.allSettled(jobs.map((job, i) => job.concurrent
        ? Promise.resolve().then(() => job.work(shared)).then((value) => { out[i] = value }, (error) => {
          if (error instanceof SerialRequired) job.concurrent = false
          throw error
        })
        : undefined))
      const failed = together.find((r) => r.status === 'rejected')
      if (failed) throw (failed as PromiseRejectedResult).reason
      const alone = executor(tx as unknown as postgres.Sql)
      for (let i = 0; i < jobs.length; i++) if (!jobs[i].concurrent) out[i] = await jobs[i].work(alone)
      return out
    })) as unknown[]
  }

  async function runBatch(jobs: Job<SqlExecutor>[]): Promise<void> {
    const concurrent = jobs.filter((job) => job.concurrent).length
    let values: unknown[]
    try {
      values = await inOneTransaction(jobs)
    } catch (error) {
      // A concurrent job that must lock rows was switched to run in turn: the batch runs again.
      const retry = jobs.filter((job) => job.concurrent).length < concurrent
      try {
        if (!retry) throw error
        values = await inOneTransaction(jobs)
      } catch (again) {
        if (jobs.length === 1) return jobs[0].reject(again)
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
    async ping() {
      await sql.unsafe('SELECT 1')
    },
    async close() {
      if (closed) return
      closed = true
      await Promise.all([commits.drain(), apartCommits.drain()])
      await sql.end({ timeout: 5 })
    },
  }
}

function executor(sql: postgres.Sql, concurrent = false): SqlExecutor {
  const query = (text: string, params?: readonly SqlValue[]) =>
    sql.unsafe(text, (params ? bindable(params) : []) as postgres.ParameterOrJSON<never>[], { prepare: true })
  return {
    concurrent,
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
    await exec.run('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)')
    const done = new Set((await exec.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version))
    let applied = 0
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue
      const statements = Array.isArray(m.up) ? m.up : (m.up as { postgres: readonly string[] }).postgres
      for (const statement of statements) await tx.unsafe(statement)
      await exec.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, Date.now()])
      applied++
    }
    return applied
  })) as number
}
