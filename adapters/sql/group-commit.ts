/**
 * Group commit: writes submitted in the same tick share one transaction and one durable
 * commit. Each write keeps its own outcome: the adapter's `runBatch` settles every job.
 *
 * The batcher only decides *when* and *what* to commit; how a batch becomes a transaction is
 * the adapter's business. `maxInFlight` batches may be committing at once (1 for SQLite's
 * single writer, a few for a Postgres pool); writes arriving meanwhile form the next batch,
 * so batches grow with load and the commit cost per write falls.
 */

export interface Job<C> {
  readonly work: (tx: C) => Promise<unknown>
  /** May share its batch's transaction concurrently with the other concurrent jobs (see the store port). */
  concurrent: boolean
  resolve(value: unknown): void
  reject(error: unknown): void
}

export interface GroupCommitOptions<C> {
  readonly maxInFlight: number
  readonly maxBatch: number
  readonly runBatch: (jobs: Job<C>[]) => Promise<void>
}

export interface GroupCommit<C> {
  submit<T>(work: (tx: C) => Promise<T>, concurrent?: boolean): Promise<T>
  /** Resolves once every job submitted so far has settled. */
  drain(): Promise<void>
  readonly stats: { batches: number; jobs: number }
}

const nextTick: (fn: () => void) => void =
  typeof setImmediate === 'function' ? (fn) => setImmediate(fn) : (fn) => setTimeout(fn, 0)

export function createGroupCommit<C>(options: GroupCommitOptions<C>): GroupCommit<C> {
  let queue: Job<C>[] = []
  let inFlight = 0
  let scheduled = false
  const idle: Array<() => void> = []
  const stats = { batches: 0, jobs: 0 }

  function schedule() {
    if (scheduled) return
    scheduled = true
    nextTick(flush)
  }

  function flush() {
    scheduled = false
    while (inFlight < options.maxInFlight && queue.length > 0) {
      const batch = queue.length <= options.maxBatch ? queue : queue.slice(0, options.maxBatch)
      queue = batch === queue ? [] : queue.slice(batch.length)
      inFlight++
      stats.batches++
      stats.jobs += batch.length
      options
        .runBatch(batch)
        .catch((error) => {
          for (const job of batch) job.reject(error)
        })
        .finally(() => {
          inFlight--
          if (queue.length > 0) schedule()
          else if (inFlight === 0) for (const done of idle.splice(0)) done()
        })
    }
  }

  return {
    stats,
    submit<T>(work: (tx: C) => Promise<T>, concurrent = false): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, concurrent, resolve: resolve as (v: unknown) => void, reject })
        schedule()
      })
    },
    drain() {
      if (queue.length === 0 && inFlight === 0) return Promise.resolve()
      return new Promise<void>((resolve) => idle.push(resolve))
    },
  }
}

/** Rewrites `$1, $2, …` placeholders for drivers that number them `?1, ?2, …`. */
export function numberedToQuestion(sql: string): string {
  return sql.replace(/\$(\d+)/g, '?$1')
}

/** Both stores keep flags as integers; booleans are bound as 1 and 0. */
export function bindable<T>(params: readonly T[]): unknown[] {
  return params.map((p) => (p === true ? 1 : p === false ? 0 : p))
}
