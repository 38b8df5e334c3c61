/**
 * Worker presence: each process that executes runs registers a row and refreshes its heartbeat.
 * A worker whose heartbeat is older than the timeout counts as dead, and other workers take its
 * runs over (the executor's ownership rule). A worker that stops cleanly removes its row, so its
 * runs are taken over at once.
 */
import { workers } from '../core/store/workers.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'

export interface WorkerPresence {
  start(): Promise<void>
  stop(): Promise<void>
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
}): WorkerPresence {
  let timer: ReturnType<typeof setInterval> | null = null
  let beating: Promise<unknown> | null = null
  const beat = async () => {
    if (beating) return
    beating = (async () => {
      try {
        await deps.store.write((tx) => workers.beat(tx, deps.workerId, deps.clock.now()))
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
