/**
 * Worker presence: each process that executes runs registers a row and refreshes its heartbeat.
 * A worker whose heartbeat is older than the timeout counts as dead, and other workers take its
 * runs over (the executor's ownership rule). A worker that stops cleanly removes its row, so its
 * runs are taken over at once.
 *
 * An outage of the database silences every heartbeat at once: a heartbeat that went stale while
 * this worker could not write its own says nothing about the other worker (see Staleness).
 */
import { workers } from '../core/store/workers.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'

export interface WorkerPresence {
  start(): Promise<void>
  stop(): Promise<void>
}

/** When another worker's heartbeat counts as stale, as this worker can tell. */
export interface Staleness {
  /** Heartbeats older than this count as stale: their workers are dead, and their runs are taken over. */
  staleBefore(): number
  /** Whether this worker could write its own heartbeat just now. */
  beat(written: boolean): void
}

/**
 * Normally a heartbeat older than `timeoutMs` is stale. From the first heartbeat this worker could
 * not write until `timeoutMs` after it wrote one again, only heartbeats that were stale already
 * when it last wrote its own count: the others may have gone silent for the same reason it did,
 * and get a full timeout from the recovery to beat again. With the heartbeat well inside the
 * timeout (3 s in 15 s), any outage long enough to stale another heartbeat fails one of ours.
 */
export function createStaleness(deps: { clock: Clock; timeoutMs: number }): Staleness {
  let lastWritten = deps.clock.now()
  let failing = false
  /** The last blind spell: from this worker's last heartbeat before it, to its first after. */
  let blind: { from: number; until: number } | null = null
  return {
    staleBefore() {
      const now = deps.clock.now()
      if (failing) return lastWritten - deps.timeoutMs
      if (blind && now < blind.until + deps.timeoutMs) return blind.from - deps.timeoutMs
      blind = null
      return now - deps.timeoutMs
    },
    beat(written) {
      if (!written) {
        failing = true
        return
      }
      const now = deps.clock.now()
      // A second outage within the first one's grace extends it, from the earlier start.
      if (failing) blind = { from: Math.min(blind?.from ?? lastWritten, lastWritten), until: now }
      failing = false
      lastWritten = now
    },
  }
}

export function createWorkerPresence(deps: {
  store: Store
  clock: Clock
  logger: Logger
  workerId: string
  role: string
  host: string
  heartbeatMs: number
  /** The embedded mode runs alone: rows of earlier processes are stale by definition. */
  exclusive: boolean
  /** Called after each heartbeat (the sweep for orphaned runs rides on it). */
  onBeat?: () => Promise<unknown>
  /** Told whether each heartbeat could be written. */
  staleness?: Staleness
}): WorkerPresence {
  let timer: ReturnType<typeof setInterval> | null = null
  let beating: Promise<unknown> | null = null
  const beat = async () => {
    if (beating) return
    beating = (async () => {
      try {
        await deps.store
          .write((tx) => workers.beat(tx, deps.workerId, deps.clock.now()))
          .catch((error) => {
            deps.staleness?.beat(false)
            throw error
          })
        deps.staleness?.beat(true)
        await deps.onBeat?.()
      } catch (error) {
        deps.logger.warn('worker heartbeat failed', { error: String(error) })
      } finally {
        beating = null
      }
    })()
  }
  return {
    async start() {
      const now = deps.clock.now()
      await deps.store.write(async (tx) => {
        if (deps.exclusive) await workers.removeOthers(tx, deps.workerId)
        await workers.register(tx, { id: deps.workerId, role: deps.role, host: deps.host, at: now })
      })
      timer = setInterval(beat, deps.heartbeatMs)
      ;(timer as { unref?: () => void }).unref?.()
    },
    async stop() {
      if (timer) clearInterval(timer)
      await beating
      await deps.store.write((tx) => workers.remove(tx, deps.workerId)).catch(() => {})
    },
  }
}
