/**
 * The executor keeps live runs in memory as actors, at most `concurrency` at once, and fewer
 * while its event loop lags (adaptive-concurrency.ts).
 *
 * A run enters when it is admitted here (`enqueueFresh`, no database read; it starts on a later
 * turn, see SLICE_WHILE_ADMITTING) or when something wakes
 * it (`wake`: recovery, a fired timer, a resume or cancel in its inbox). It leaves when it ends
 * or starts waiting: its journal is flushed and its actor stopped, so a waiting run costs a
 * row, not memory. Inbox events are sent to the actor and deleted with the next flush.
 *
 * This file composes the executor's parts: executor-turns.ts queues runs and starts them turn
 * by turn, executor-load.ts makes a run live, executor-live.ts keeps it going and puts it away.
 */
import { runs } from '../../core/store/runs.ts'
import type { Registry } from '../../core/plugin/registry.ts'
import type { JournalDeps } from './journal.ts'
import { createAdmissionFinisher } from './finish-at-admission.ts'
import { createRunMachine, type RunMachine } from './machine.ts'
import type { Executor, NodeRunner } from './types.ts'
import type { Plan } from './plan.ts'
import type { BranchesOf } from './state.ts'
import type { createPlanCache } from './plan.ts'
import { type ExecutorBacklog, queuedOf } from './start-queue.ts'
import { BoundedMap } from '../../core/bounded-map.ts'
import { deliverInbox, type Entry, type ExecutorContext } from './executor-live.ts'
import { createRunLoader } from './executor-load.ts'
import { createTurns, type Turns } from './executor-turns.ts'

export interface ExecutorDeps extends JournalDeps {
  readonly registry: Registry
  readonly runner: NodeRunner
  readonly plans: ReturnType<typeof createPlanCache>
  readonly concurrency: number
  /** The event-loop lag above which fewer runs are kept going at once (AUTOMATON_EXECUTION_LAG_TARGET_MS; 0: never). */
  readonly lagTargetMs?: number
  /** This process's worker id: a run is executed only by the worker that owns it. */
  readonly workerId: string
  /** Milliseconds after its last heartbeat when a worker counts as dead and its runs are taken over. */
  readonly workerTimeoutMs: number
  /**
   * Heartbeats older than this count as stale (runtime/workers.ts: later after an outage of the
   * store, so that no worker takes over the runs of one that was only as cut off as itself).
   * By default, `workerTimeoutMs` before now.
   */
  readonly staleBefore?: () => number
  /** An organization's fair share when runs wait to start here (default 1 each). */
  readonly fairShare?: (organizationId: string) => number
}

export type { ExecutorBacklog }

/** Heartbeats (3 s apart by default) between two sweeps for this worker's own stale runs while runs are queued here. */
const OWN_SWEEP_EVERY = 20

export function createExecutor(deps: ExecutorDeps): Executor {
  const machines = new BoundedMap<string, RunMachine>(1000)
  const entries = new Map<string, Entry>()
  const branchesOf: BranchesOf = (type, version) => deps.registry.action(type, version)?.branches
  const now = () => deps.clock.now()
  const staleBefore = deps.staleBefore ?? (() => now() - deps.workerTimeoutMs)

  function machineFor(plan: Plan): RunMachine {
    let machine = machines.get(plan.hash)
    if (!machine) {
      machine = createRunMachine(plan, deps.runner, branchesOf, now)
      machines.set(plan.hash, machine)
    }
    return machine
  }

  const turns = createTurns(deps, entries, (entry, item) =>
    item.fresh ? loader.activateFresh(entry, item.fresh, item.woken === true) : loader.activateStored(entry),
  )
  const { state, queue, enqueue } = turns
  const ctx: ExecutorContext = { deps, entries, branchesOf, machineFor, now, release: turns.release }
  const loader = createRunLoader(ctx, staleBefore)

  return {
    finishAtAdmission: createAdmissionFinisher(deps, machineFor, branchesOf),
    enqueueFresh(run) {
      state.admittedSinceTurn++
      enqueue(queuedOf(run, queue.keepsPayload()))
    },
    has: turns.isHere,
    take(runId) {
      const entry = entries.get(runId)
      if (entry) {
        this.wake(runId)
        return Promise.resolve()
      }
      return new Promise<void>((resolve, reject) =>
        enqueue({ runId, taken: (error) => (error === undefined ? resolve() : reject(error)) }),
      )
    },
    wake(runId, place) {
      const entry = entries.get(runId)
      if (!entry) return enqueue(place ? { runId, woken: true, ...place } : { runId, woken: true })
      if (entry.phase === 'active') {
        deliverInbox(ctx, entry).catch((error) =>
          deps.logger.error('could not read run inbox', { runId, error: String(error) }),
        )
      } else entry.wakePending = true
    },
    sweep: () => sweep(deps, turns, staleBefore()),
    idle: turns.idle,
    get active() {
      return state.running
    },
    get concurrencyLimit() {
      return turns.limit.current()
    },
    backlog: () => queue.backlog(),
    stop: (graceMs) => stop(turns, entries, now, graceMs),
  }
}

/** Queues the runs that were running without a live owner, and runs with inbox events nobody took. */
async function sweep(deps: ExecutorDeps, turns: Turns, stale: number): Promise<number> {
  const { state, queue } = turns
  // Under a backlog, this worker's own stale runs are nearly all queued here: reading them
  // (tens of thousands) on every heartbeat would stall the event loop for nothing. So they
  // are looked for when the queue is empty, and at least every OWN_SWEEP_EVERY heartbeats.
  const own = queue.length === 0 || ++state.sweepsWithoutOwn >= OWN_SWEEP_EVERY
  if (own) state.sweepsWithoutOwn = 0
  const rows = await runs.needingExecution(deps.store, deps.workerId, stale, { own })
  let woken = 0
  for (const { id } of rows) {
    if (turns.isHere(id)) continue
    turns.enqueue({ runId: id })
    woken++
  }
  return woken
}

/** Starts nothing more, waits up to `graceMs` for live runs to leave, then flushes and stops the rest. */
async function stop(turns: Turns, entries: Map<string, Entry>, now: () => number, graceMs: number) {
  turns.state.stopped = true
  turns.limit.stop()
  turns.queue.clear()
  const deadline = now() + graceMs
  while (turns.state.running > 0 && now() < deadline) await new Promise((r) => setTimeout(r, 20))
  await Promise.all(
    [...entries.values()].map(async (entry) => {
      await entry.journal?.flushed()
      entry.actor?.stop()
    }),
  )
}
