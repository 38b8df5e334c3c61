/**
 * Waking runs where they execute: in this process when it executes them, else through the
 * work queue (the worker that takes the run reads its inbox) and a broadcast to the worker that
 * has it live.
 */
import type { EngineDeps } from './index.ts'
import { runs } from '../core/store/runs.ts'
import type { Executor } from './engine/types.ts'
import type { QueuePlace } from './engine/start-queue.ts'

/** Broadcast to every worker: "if you are executing this run, read its inbox". */
export const WAKE_SUBJECT = 'automaton.internal.wake'

/** How the engine reaches the executor of a run. */
export interface Waking {
  /** Hands a run to the workers through the work queue (the sweep finds it if that fails). */
  notify(runId: string): Promise<void>
  /** Tells whoever executes a run that it has inbox events (a resume, a timer, a cancel); `place`: where it waits to start here. */
  wake(runId: string, place?: QueuePlace): void
  /**
   * The work queue lost notifications (its storage was wiped and made again): the runs they named
   * are running and owned by nobody. They are taken now rather than when the sweep finds them
   * old enough (AUTOMATON_WORKER_TIMEOUT_MS); a run still notified is then taken twice, harmlessly.
   */
  recoverUnnotified(): Promise<void>
}

export function createWaking(
  deps: Pick<EngineDeps, 'role' | 'store' | 'bus' | 'workQueue' | 'logger'>,
  executor: Executor,
): Waking {
  const notify = (runId: string) =>
    deps.workQueue.notify(runId).catch((error) =>
      deps.logger.warn('could not notify the work queue; the sweep will find the run', {
        runId,
        error: String(error),
      }),
    )
  return {
    notify,
    wake(runId, place) {
      if (deps.role === 'embedded' || executor.has(runId)) return executor.wake(runId, place)
      deps.bus.publish(WAKE_SUBJECT, { runId })
      void notify(runId)
    },
    async recoverUnnotified() {
      try {
        let woken = 0
        for (const { id } of await runs.unowned(deps.store)) {
          if (executor.has(id)) continue
          executor.wake(id)
          woken++
        }
        if (woken > 0) deps.logger.info('taking runs whose work notifications were lost', { count: woken })
      } catch (error) {
        deps.logger.warn('could not look for runs whose work notifications were lost; the sweep will find them', {
          error: String(error),
        })
      }
    },
  }
}
