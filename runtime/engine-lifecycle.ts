/**
 * The engine's start and stop. A process that executes runs registers, recovers unfinished
 * runs, takes work (a worker: from the work queue, and wakes broadcast to it), and fires timers,
 * schedule ticks, polls and trigger subscriptions' background calls; an API process does none of it. Stopping lets live runs flush.
 */
import type { WorkConsumer } from '../core/ports/work-queue.ts'
import type { FlowReleases } from './dispatch/flow-releases.ts'
import type { Backlog, Executor } from './engine/types.ts'
import { type Waking, WAKE_SUBJECT } from './engine-waking.ts'
import type { EngineDeps } from './index.ts'
import type { TriggerIndex } from './integrations/trigger-index.ts'
import type { Sandbox } from './sandbox/index.ts'
import type { ScheduleTicker } from './schedules/scheduler.ts'
import type { Poller } from './polls/poller.ts'
import type { SubscriptionKeeper } from './subscriptions/keeper.ts'
import type { DurableTimers } from './timers.ts'
import type { WorkerPresence } from './workers.ts'

/** The engine's parts that start and stop. */
export interface LifecycleParts {
  executor: Executor
  presence: WorkerPresence
  timers: DurableTimers
  schedules: ScheduleTicker
  polls: Poller
  subscriptions: SubscriptionKeeper
  triggerIndex: TriggerIndex
  backlog: Backlog | null
  sandbox: Sandbox
  waking: Waking
  flowReleases: FlowReleases
}

export function engineLifecycle(
  deps: Pick<EngineDeps, 'role' | 'store' | 'bus' | 'workQueue' | 'logger' | 'concurrency'>,
  parts: LifecycleParts,
): { start(): Promise<void>; stop(graceMs: number): Promise<void> } {
  const { executor, presence, timers, schedules } = parts
  const executes = deps.role !== 'api'
  let consumer: WorkConsumer | null = null
  let wakes: { unsubscribe(): void } | null = null
  let losses: { unsubscribe(): void } | null = null
  return {
    async start() {
      if (!executes) return
      await presence.start()
      const recovered = await executor.sweep()
      if (recovered > 0) deps.logger.info('recovering runs', { count: recovered })
      if (deps.role === 'worker') {
        wakes = deps.bus.subscribe<{ runId: string }>(WAKE_SUBJECT, (m) => {
          if (executor.has(m.data.runId)) executor.wake(m.data.runId)
        })
        consumer = await deps.workQueue.consume((runId) => executor.take(runId), deps.concurrency)
        losses = deps.workQueue.onLoss?.(() => void parts.waking.recoverUnnotified()) ?? null
      }
      timers.start()
      parts.flowReleases.start()
      await parts.flowReleases.sweep()
      await parts.triggerIndex.backfill(deps.store)
      await schedules.reconcileAll()
      schedules.start()
      await parts.polls.reconcileAll()
      parts.polls.start()
      await parts.subscriptions.reconcileAll()
      parts.subscriptions.start()
    },
    async stop(graceMs) {
      wakes?.unsubscribe()
      losses?.unsubscribe()
      await consumer?.stop()
      await schedules.stop()
      await parts.polls.stop()
      await parts.subscriptions.stop()
      await timers.stop()
      await parts.flowReleases.stop()
      await executor.stop(graceMs)
      parts.backlog?.stop()
      if (executes) await presence.stop()
      await parts.sandbox.close()
    },
  }
}
