/**
 * Starting runs a concurrency limit held back (flow control, `onLimit: queue`): when a run of a
 * workflow that holds runs ends, the oldest held runs of each key start, as many as the key has
 * room for. A run counted against its key stays counted until it ends, whichever process ends it
 * (a run of a dead process taken over counts until its new owner ends it). The workflow row is
 * locked (Postgres), so admissions and other processes' releases see the same count.
 *
 * Runs that wait for a time (throttle, debounce) go on when it comes: each release answers the
 * earliest, and a wake loop comes back then. A run let go by one rule with rules still ahead of it
 * moves on to them and may wait again (flow-stages.ts). A run's end reaches every process on the bus; every
 * heartbeat also sweeps the workflows with held runs, so that a release lost with a process still
 * happens.
 */
import { isTerminalRunEvent } from '../../core/domain/run-lifecycle.ts'
import type { RecordedEvent } from '../../core/events.ts'
import type { Bus, Subscription } from '../../core/ports/bus.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { SqlExecutor, Store } from '../../core/ports/store.ts'
import { flowRuns, type HeldRun } from '../../core/store/flow-control.ts'
import { workflows } from '../../core/store/workflows.ts'
import { createWakeLoop } from '../wake-loop.ts'
import type { FairReleases } from './flow-fairness.ts'
import { releaseConcurrency } from './flow-concurrency.ts'
import { releaseDebounce } from './flow-debounce.ts'
import { releaseThrottle } from './flow-throttle.ts'

export interface FlowReleaseDeps {
  store: Store
  bus: Bus
  clock: Clock
  logger: Logger
  /** Hands a run that became runnable to whoever executes runs. */
  wake(runId: string): void
  /** How often held runs that wait for a time are looked at, at the latest (1 s). */
  pollMs?: number
  /** Releases of the runs held for their organization's turn (flow-fairness.ts), started and stopped with these. */
  fair?: FairReleases
}

export interface FlowReleases {
  /** A run of this workflow was held back here: the ends of its runs now release. */
  note(workflowId: string): void
  start(): void
  /** Releases what the workflows holding runs have room for (each heartbeat). */
  sweep(): Promise<void>
  stop(): Promise<void>
}

export function createFlowReleases(deps: FlowReleaseDeps): FlowReleases {
  /** Workflows seen holding runs: the ends of their runs are worth a release. */
  const holding = new Set<string>()
  const pending = new Set<string>()
  let draining: Promise<void> | null = null
  let subscription: Subscription | null = null
  /** Workflows whose held runs wait for a time (throttle, debounce): when the earliest can start. */
  const timed = new Map<string, number>()
  const loop = createWakeLoop({
    clock: deps.clock,
    pollMs: deps.pollMs ?? 1000,
    async tick() {
      const now = deps.clock.now()
      for (const [workflowId, due] of timed) {
        if (due > now) continue
        timed.delete(workflowId)
        pending.add(workflowId)
      }
      await drain()
      loop.setNext(Math.min(...timed.values()))
    },
  })

  async function releaseOne(workflowId: string) {
    const started = await deps.store.write((tx) => release(tx, deps.store.dialect, workflowId, deps.clock.now()))
    if (started.stillHolding) holding.add(workflowId)
    else holding.delete(workflowId)
    if (started.due === undefined) timed.delete(workflowId)
    else {
      timed.set(workflowId, started.due)
      loop.dueAt(started.due)
    }
    for (const id of started.ids) deps.wake(id)
  }

  /** Releases the pending workflows one after another; one drain at a time. */
  function drain(): Promise<void> {
    if (draining) return draining
    if (pending.size === 0) return Promise.resolve()
    const work = async () => {
      while (pending.size > 0) {
        const [workflowId] = pending
        pending.delete(workflowId)
        await releaseOne(workflowId).catch((error) =>
          deps.logger.warn('could not start held runs; the next sweep tries again', {
            workflowId,
            error: String(error),
          }),
        )
      }
    }
    draining = work().finally(() => {
      draining = null
    })
    return draining
  }

  return {
    note(workflowId) {
      holding.add(workflowId)
      // A run of the key may have ended between the admission's count and its commit.
      pending.add(workflowId)
      void drain()
    },
    start() {
      loop.start()
      deps.fair?.start()
      subscription = deps.bus.subscribe<RecordedEvent>('evt.>', ({ data }) => {
        if (!data.workflowId || !isTerminalRunEvent(data.type) || !holding.has(data.workflowId)) return
        pending.add(data.workflowId)
        void drain()
      })
    },
    async sweep() {
      const rows = await flowRuns.workflowsHolding(deps.store)
      for (const { workflow_id } of rows) {
        holding.add(workflow_id)
        pending.add(workflow_id)
      }
      await drain()
      await deps.fair?.sweep()
    },
    async stop() {
      await deps.fair?.stop()
      loop.stop()
      subscription?.unsubscribe()
      pending.clear()
      await draining
    },
  }
}

/** How the held runs of one key start, by what they wait for. */
const RELEASES: Record<string, typeof releaseConcurrency> = {
  concurrency: releaseConcurrency,
  throttle: releaseThrottle,
  debounce: releaseDebounce,
}

/**
 * In one transaction: starts the held runs of a workflow that their keys have room for; answers
 * them, whether runs still wait, and when the earliest of those that wait for time can start.
 */
async function release(
  tx: SqlExecutor,
  dialect: Store['dialect'],
  workflowId: string,
  at: number,
): Promise<{ ids: string[]; stillHolding: boolean; due?: number }> {
  if (dialect === 'postgres') await workflows.lockById(tx, dialect, workflowId)
  const held = await flowRuns.heldOf(tx, workflowId)
  const byKey = new Map<string, HeldRun[]>()
  for (const run of held) {
    const queue = byKey.get(run.flow_key)
    if (queue) queue.push(run)
    else byKey.set(run.flow_key, [run])
  }
  const ids: string[] = []
  let due: number | undefined
  for (const queue of byKey.values()) {
    const reason = (JSON.parse(queue[0].waiting_for) as { reason: string }).reason
    const started = await (RELEASES[reason] ?? releaseConcurrency)(tx, workflowId, queue, at)
    ids.push(...started.ids)
    if (started.due !== undefined) due = Math.min(due ?? started.due, started.due)
  }
  return { ids, stillHolding: held.length > ids.length, due }
}
