/**
 * Starting runs a concurrency limit held back (flow control, `onLimit: queue`): when a run of a
 * workflow that holds runs ends, the best ranked held runs of each key start (the highest priority,
 * each run gaining one step per second waited; then the oldest), as many as the key has room for,
 * and go to the executor's start queue in that order, aged since their admission. A run counted against its key stays counted until it ends, whichever process ends it
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
import type { RecordedEvent } from '../../core/domain-events.ts'
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
import { priorityHeld, rankHeld } from './flow-stages.ts'
import type { QueuePlace } from '../engine/start-queue.ts'

export interface FlowReleaseDeps {
  store: Store
  bus: Bus
  clock: Clock
  logger: Logger
  /** Hands a run that became runnable to whoever executes runs (`place`: where it waits to start there). */
  wake(runId: string, place?: QueuePlace): void
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
    const outcome = await deps.store.write((tx) => release(tx, deps.store.dialect, workflowId, deps.clock.now()))
    if (outcome.stillHolding) holding.add(workflowId)
    else holding.delete(workflowId)
    if (outcome.due === undefined) timed.delete(workflowId)
    else {
      timed.set(workflowId, outcome.due)
      loop.dueAt(outcome.due)
    }
    for (const { run } of outcome.started) deps.wake(run.id, placeOf(workflowId, run))
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
 * In one transaction: starts the held runs of a workflow that their keys have room for, each key's
 * best ranked first (priority, aged one step per second since admission: `rankHeld`); answers
 * them, best ranked first, whether runs still wait, and when the earliest of those that wait for
 * time can start.
 */
async function release(
  tx: SqlExecutor,
  dialect: Store['dialect'],
  workflowId: string,
  at: number,
): Promise<{ started: Released[]; stillHolding: boolean; due?: number }> {
  if (dialect === 'postgres') await workflows.lockById(tx, dialect, workflowId)
  const held = (await flowRuns.heldOf(tx, workflowId)).map((run) => ({ run, rank: rankHeld(run) }))
  held.sort((a, b) => a.rank - b.rank)
  const byKey = new Map<string, HeldRun[]>()
  const byId = new Map<string, Released>()
  for (const { run, rank } of held) {
    byId.set(run.id, { run, rank })
    const queue = byKey.get(run.flow_key)
    if (queue) queue.push(run)
    else byKey.set(run.flow_key, [run])
  }
  const started: Released[] = []
  let due: number | undefined
  for (const queue of byKey.values()) {
    const reason = (JSON.parse(queue[0].waiting_for) as { reason: string }).reason
    const released = await (RELEASES[reason] ?? releaseConcurrency)(tx, workflowId, queue, at)
    for (const id of released.ids) started.push(byId.get(id)!)
    if (released.due !== undefined) due = Math.min(due ?? released.due, released.due)
  }
  started.sort((a, b) => a.rank - b.rank)
  return { started, stillHolding: held.length > started.length, due }
}

/** A held run a release started, with its rank. */
interface Released {
  run: HeldRun
  rank: number
}

/** Where a released run waits to start in the executor: its organization's and workflow's lines, aged since its admission. */
function placeOf(workflowId: string, run: HeldRun): QueuePlace {
  const priority = priorityHeld(run)
  return { organizationId: run.organization_id, workflowId, queuedAt: Number(run.started_at), priority }
}
