/**
 * Whether the database can be reached, as the Postgres store sees it.
 *
 * A connection attempt that fails (refused, timed out, "the database system is shutting down")
 * makes the database *known down*: from then on queries are refused at once with
 * StoreUnavailableError instead of queueing for a connection that cannot be made, the queries
 * still waiting for one are refused too, and the driver's reconnections back off. One probe at a
 * time (a connection of its own, backing off from 50 ms to a second) finds the database back;
 * then queries go through again.
 *
 * A connection lost during a query (a terminated backend, a reset) fails that query with a 503;
 * it makes the store probe at once, and only a failed probe makes the database known down (a
 * terminated backend of a database that still answers does not). Nothing here bounds a query
 * that runs: under load a query waits for a free connection as long as it takes.
 */
import { StoreUnavailableError } from '../../core/errors.ts'
import type { Logger } from '../../core/ports/logger.ts'

export interface Availability {
  /** The database is known to be unreachable: queries are refused without trying. */
  readonly down: boolean
  /**
   * Runs a query unless the database is known down. Until it calls `started()`, the query is
   * only waiting (for a connection), and is refused at once if the database goes down meanwhile;
   * `started()` answers false when that happened (the query must then do nothing).
   */
  admit<T>(query: (started: () => boolean) => Promise<T>): Promise<T>
  /** A query failed with this error: a failed connection attempt makes the database known down. */
  observe(error: unknown): void
  /** Seconds the driver waits before it opens a connection again (postgres.js's `backoff`). */
  reconnectDelaySeconds(): number
  close(): void
}

export interface AvailabilityOptions {
  /** One connection attempt and a trivial query, on a connection apart from the pool; rejects within a few seconds. */
  probe(): Promise<unknown>
  logger?: Logger
  /** `connect`: a connection attempt failed; `lost`: a connection went away; null: anything else. */
  classify(error: unknown): 'connect' | 'lost' | null
}

/** The first probe after the database went away, and the longest wait between two. */
const FIRST_PROBE_MS = 50
const MAX_PROBE_MS = 1000

interface Waiting {
  reject(error: unknown): void
  started: boolean
}

export function createAvailability(options: AvailabilityOptions): Availability {
  let downSince: number | null = null
  let cause: unknown = null
  let failedProbes = 0
  let timer: ReturnType<typeof setTimeout> | null = null
  let checking = false
  let closed = false
  const waiting = new Set<Waiting>()

  /** Backs off exponentially, with jitter so that processes do not knock in step. */
  const backoffMs = () => Math.min(MAX_PROBE_MS, FIRST_PROBE_MS * 2 ** failedProbes) * (0.75 + Math.random() / 4)

  function goDown(error: unknown) {
    if (downSince !== null || closed) return
    downSince = Date.now()
    cause = error
    failedProbes = 0
    options.logger?.error('database unreachable; refusing queries until it answers', { error: describe(error) })
    // Queries waiting for a connection would wait for the driver's reconnections: refuse them now.
    for (const query of waiting) {
      if (query.started) continue
      waiting.delete(query)
      query.reject(new StoreUnavailableError(error))
    }
    planProbe()
  }

  /** The probe reached the database: it answered, or refused with an answer of its own (full, say). */
  const reached = () =>
    options.probe().then(
      () => true,
      (error) => {
        if (options.classify(error) === null) return true
        cause = error
        return false
      },
    )

  function planProbe() {
    if (closed) return
    timer = setTimeout(async () => {
      timer = null
      if (!(await reached())) {
        failedProbes++
        return planProbe()
      }
      if (closed || downSince === null) return
      options.logger?.info('database reachable again', { downForMs: Date.now() - downSince })
      downSince = null
      cause = null
      failedProbes = 0
    }, backoffMs())
    ;(timer as { unref?: () => void }).unref?.()
  }

  return {
    get down() {
      return downSince !== null
    },
    admit(query) {
      if (downSince !== null) return Promise.reject(new StoreUnavailableError(cause))
      return new Promise((resolve, reject) => {
        const entry: Waiting = { reject, started: false }
        waiting.add(entry)
        const started = () => {
          if (!waiting.has(entry)) return false
          entry.started = true
          return true
        }
        query(started)
          .then(resolve, reject)
          .finally(() => waiting.delete(entry))
      })
    },
    observe(error) {
      if (downSince !== null || closed) return
      const kind = options.classify(error)
      if (kind === 'connect') return goDown(error)
      if (kind !== 'lost' || checking) return
      // A lost connection: a terminated backend, or the database going away? One probe tells.
      checking = true
      reached()
        .then((ok) => ok || goDown(cause))
        .finally(() => (checking = false))
    },
    reconnectDelaySeconds: () => (downSince === null ? 0 : backoffMs() / 1000),
    close() {
      closed = true
      if (timer) clearTimeout(timer)
      timer = null
    },
  }
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message
}
