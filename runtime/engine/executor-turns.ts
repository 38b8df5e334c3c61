/**
 * The executor's start queue, worked turn by turn: queued runs start a slice per event-loop
 * turn (SLICE_WHILE_ADMITTING) while fewer runs are live than the concurrency limit, and a run
 * that leaves makes room for the next.
 */
import type { ExecutorDeps } from './executor.ts'
import { type Entry, failUnstartable } from './executor-live.ts'
import { adaptiveConcurrency, type ConcurrencyLimit } from './adaptive-concurrency.ts'
import { nextTurn } from './next-turn.ts'
import { DefinitionError } from './plan.ts'
import { createStartQueue, type Queued } from './start-queue.ts'

/**
 * Starting a run executes its first nodes at once. Starting every admitted run in the turn
 * that commits it would hold back the answers to the requests being admitted meanwhile, so
 * runs start on later turns, a slice per turn: a small one while admissions keep coming, a
 * large one when the process is otherwise idle.
 */
const SLICE_WHILE_ADMITTING = 16
const SLICE_WHEN_IDLE = 256

/** The executor's counters and flags, in one named place (the maps and the start queue sit beside it). */
export interface ExecutorState {
  /** Runs loading or active here (at most `concurrency`). */
  running: number
  /** Set by stop(): nothing more is queued or started. */
  stopped: boolean
  /** Runs admitted since the last turn: a small slice per turn while admissions keep coming. */
  admittedSinceTurn: number
  turnScheduled: boolean
  /** Heartbeat sweeps since the last that looked for this worker's own stale runs. */
  sweepsWithoutOwn: number
}

/** The start queue and the runs' places in the executor. */
export interface Turns {
  readonly state: ExecutorState
  readonly queue: ReturnType<typeof createStartQueue>
  readonly limit: ConcurrencyLimit
  /** Queues a run to start on a later turn (nothing once stopped, or when it is queued already). */
  enqueue(item: Queued): void
  /** The run left: frees its place, queues it again if it was woken meanwhile, and starts what waits. */
  release(entry: Entry): void
  /** Live in this process, or queued to start here. */
  isHere(runId: string): boolean
  /** Resolves when no run is active or queued. */
  idle(): Promise<void>
}

/** `activate` makes a queued run live; a run it fails to start is released (and failed, when it cannot execute). */
export function createTurns(
  deps: ExecutorDeps,
  entries: Map<string, Entry>,
  activate: (entry: Entry, item: Queued) => Promise<void>,
): Turns {
  const queue = createStartQueue(() => deps.clock.now(), deps.fairShare)
  const idleWaiters: Array<() => void> = []
  const state: ExecutorState = {
    running: 0,
    stopped: false,
    admittedSinceTurn: 0,
    turnScheduled: false,
    sweepsWithoutOwn: 0,
  }
  const limit = adaptiveConcurrency({
    max: deps.concurrency,
    targetLagMs: deps.lagTargetMs ?? 0,
    onRaise: () => scheduleTurn(),
  })

  function enqueue(item: Queued) {
    if (state.stopped || !queue.add(item)) return item.taken?.()
    scheduleTurn()
  }

  function scheduleTurn() {
    if (state.turnScheduled || queue.length === 0 || state.running >= limit.current()) return
    state.turnScheduled = true
    nextTurn(turn)
  }

  function turn() {
    state.turnScheduled = false
    const slice = state.admittedSinceTurn > 0 ? SLICE_WHILE_ADMITTING : SLICE_WHEN_IDLE
    state.admittedSinceTurn = 0
    const most = limit.current()
    for (let started = 0; started < slice && state.running < most && queue.length > 0; started++) startNext()
    scheduleTurn()
    notifyIdle()
  }

  function startNext() {
    const item = queue.next()!
    if (entries.has(item.runId)) {
      entries.get(item.runId)!.wakePending = true
      item.taken?.()
      return
    }
    const entry: Entry = { runId: item.runId, phase: 'loading', wakePending: false, pulling: false, sent: new Set() }
    entries.set(item.runId, entry)
    state.running++
    let failure: unknown
    activate(entry, item)
      .catch(async (error) => {
        deps.logger.error('could not start run', {
          runId: item.runId,
          error: error instanceof Error ? error.stack : String(error),
        })
        // A run whose definition cannot execute fails once, clearly, instead of being picked up
        // again on every sweep; a store that failed is tried again: a work-queue notification is
        // handed out again (take rejects), anything else waits for the sweep.
        if (error instanceof DefinitionError) await failUnstartable(deps, item.runId, error.message)
        else failure = error
        release(entry)
      })
      .finally(() => item.taken?.(failure))
  }

  function notifyIdle() {
    if (state.running === 0 && queue.length === 0) for (const done of idleWaiters.splice(0)) done()
  }

  function release(entry: Entry) {
    if (entries.get(entry.runId) !== entry) return
    entries.delete(entry.runId)
    state.running--
    if (entry.wakePending && !state.stopped) enqueue({ runId: entry.runId })
    scheduleTurn()
    notifyIdle()
  }

  return {
    state,
    queue,
    limit,
    enqueue,
    release,
    isHere: (runId) => entries.has(runId) || queue.has(runId),
    idle() {
      if (state.running === 0 && queue.length === 0) return Promise.resolve()
      return new Promise((resolve) => idleWaiters.push(resolve))
    },
  }
}
