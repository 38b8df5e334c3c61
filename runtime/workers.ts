/**
 * Worker presence: each process that executes runs registers a row and refreshes its heartbeat.
 * A worker whose heartbeat is older than the timeout counts as dead, and other workers take its
 * runs over (the executor's ownership rule). A worker that stops cleanly removes its row, so its
 * runs are taken over at once.
 */
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
        await deps.store.write((tx) => tx.run('UPDATE workers SET heartbeat_at = $1 WHERE id = $2', [deps.clock.now(), deps.workerId]))
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
        if (deps.exclusive) await tx.run('DELETE FROM workers WHERE id <> $1', [deps.workerId])
        await tx.run(
          `INSERT INTO workers (id, role, host, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, $4)
           ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
          [deps.workerId, deps.role, deps.host, now],
        )
      })
      timer = setInterval(beat, deps.heartbeatMs)
      ;(timer as { unref?: () => void }).unref?.()
    },
    async stop() {
      if (timer) clearInterval(timer)
      await beating
      await deps.store.write((tx) => tx.run('DELETE FROM workers WHERE id = $1', [deps.workerId])).catch(() => {})
    },
  }
}
