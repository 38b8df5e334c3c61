/**
 * Publishes work notifications, and keeps the ones it cannot. A notification that NATS does not
 * take (the stream is missing, NATS is away) is kept in this process, in order and up to a bound,
 * and published again as soon as the stream takes it, with a pause of at most a second between
 * tries; a missing stream is made again first (work-stream.ts). While the connection is down
 * nothing is tried: a publish would only wait for its timeout. `notify` resolves once the
 * notification is stored or kept, so a run waits for NATS, not for the workers' sweep.
 */
import type { JetStreamClient } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/transport-node'
import type { Logger } from '../../core/ports/logger.ts'
import { isMissing, type WorkStream } from './work-stream.ts'

/** Pauses between two tries that failed, the last one repeated. */
export const BACKOFF_MS = [50, 100, 250, 500, 1000]
/** Notifications published at once while the kept ones are sent again. */
const RESEND_BATCH = 256

export const pauseOf = (attempt: number) => BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]

export interface WorkNotifier {
  notify(runId: string): Promise<void>
  /** Stops sending; says how many were kept and not sent. */
  close(): number
}

export interface WorkNotifierDeps {
  nc: NatsConnection
  js: JetStreamClient
  work: WorkStream
  logger: Logger
  stream: string
  subject: string
  /** Notifications kept at most; past it the oldest are left to the workers' sweep. */
  maxKept: number
}

export function createWorkNotifier(deps: WorkNotifierDeps): WorkNotifier {
  const { logger, stream } = deps
  let closed = false
  /** Notifications not published yet, oldest first; the value tells a notification kept again while it was being sent. */
  const kept = new Map<string, number>()
  let keptAt = 0
  let resending: Promise<void> | null = null
  let repairNeeded = false
  const connection = watchConnection(deps.nc)

  // No message id: every notification is to be stored (work-queue.ts), so there is nothing for
  // the stream to deduplicate, and a header would cost each publisher, the server and each worker.
  const publish = (runId: string) => deps.js.publish(`${deps.subject}.${runId}`, runId)

  function failed(error: unknown) {
    if (isMissing(error)) repairNeeded = true
    logger.warn('could not publish work notifications; they are kept and sent again', {
      stream,
      kept: kept.size,
      error: String(error),
    })
  }

  function keep(runId: string) {
    kept.delete(runId)
    kept.set(runId, ++keptAt)
    if (kept.size > deps.maxKept) {
      kept.delete(kept.keys().next().value!)
      logger.warn("too many work notifications kept; the oldest is left to the workers' sweep", {
        stream,
        kept: kept.size,
      })
    }
    startResending()
  }

  function startResending() {
    resending ??= resend().finally(() => {
      resending = null
      // Kept while the last round ended: another round.
      if (kept.size > 0 && !closed) startResending()
    })
  }

  /** Makes the stream again if a publish found it missing; false (after a pause) when that failed. */
  async function repaired(attempt: number): Promise<boolean> {
    try {
      await deps.work.repair()
      repairNeeded = false
      return true
    } catch (error) {
      logger.warn('could not make the work stream again; trying again', { stream, error: String(error) })
      await connection.pause(attempt)
      return false
    }
  }

  /** Publishes `batch`; forgets what went, unless it was kept again meanwhile. The last failure, or null. */
  async function send(batch: Array<[string, number]>): Promise<unknown> {
    const results = await Promise.allSettled(batch.map(([runId]) => publish(runId)))
    let failure: unknown = null
    results.forEach((result, i) => {
      const [runId, version] = batch[i]
      if (result.status === 'rejected') failure = result.reason
      else if (kept.get(runId) === version) kept.delete(runId)
    })
    return failure
  }

  /** Publishes the kept notifications, oldest first: one at a time while the stream refuses, then in batches. */
  async function resend() {
    for (let attempt = 0; kept.size > 0 && !closed; ) {
      if (!connection.up) {
        await connection.pause(BACKOFF_MS.length)
        continue
      }
      const repairing = repairNeeded
      if (repairing && !(await repaired(attempt++))) continue
      const failure = await send([...firstOf(kept, attempt === 0 ? RESEND_BATCH : 1)])
      if (failure === null) {
        if (attempt > 0) logger.info('work notifications are published again', { stream, kept: kept.size })
        attempt = 0
        continue
      }
      failed(failure)
      // A missing stream is made again at once; a failure after a repair waits.
      if (!repairNeeded || repairing) await connection.pause(attempt++)
    }
  }

  return {
    async notify(runId) {
      if (closed || deps.nc.isClosed()) throw new Error('the work queue is closed')
      if (!connection.up)
        logger.warn('NATS is away: work notifications are kept and sent once it is back', {
          stream,
          kept: kept.size + 1,
        })
      // Behind the ones already waiting: the stream is not taking notifications now.
      if (kept.size > 0 || !connection.up) return keep(runId)
      try {
        await publish(runId)
      } catch (error) {
        failed(error)
        keep(runId)
      }
    },
    close() {
      closed = true
      return kept.size
    },
  }
}

/** Whether the connection is up, and a pause that ends early when it comes back. */
function watchConnection(nc: NatsConnection) {
  let up = true
  let nudge = null as (() => void) | null
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') up = false
      else if (status.type === 'reconnect') {
        up = true
        nudge?.()
      }
    }
  })().catch(() => {})
  return {
    get up() {
      return up
    },
    pause: (attempt: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => nudge?.(), pauseOf(attempt))
        nudge = () => {
          clearTimeout(timer)
          nudge = null
          resolve()
        }
      }),
  }
}

/** The first `n` entries of a map, in order. */
function* firstOf<K, V>(map: Map<K, V>, n: number): Generator<[K, V]> {
  if (n <= 0) return
  for (const entry of map) {
    yield entry
    if (--n === 0) return
  }
}
