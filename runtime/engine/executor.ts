/**
 * The executor keeps live runs in memory as actors, at most `concurrency` at once, and fewer
 * while its event loop lags (adaptive-concurrency.ts).
 *
 * A run enters when it is admitted here (`enqueueFresh`, no database read; it starts on a later
 * turn, see SLICE_WHILE_ADMITTING) or when something wakes
 * it (`wake`: recovery, a fired timer, a resume or cancel in its inbox). It leaves when it ends
 * or starts waiting: its journal is flushed and its actor stopped, so a waiting run costs a
 * row, not memory. Inbox events are sent to the actor and deleted with the next flush.
 */
import { runInbox } from '../../core/store/run-side.ts'
import { createActor } from 'xstate'
import type { Definition } from '../../core/domain/workflow.ts'
import { parseJson } from '../../core/json.ts'
import { type RunRow, runs } from '../../core/store/runs.ts'
import type { Registry } from '../../core/plugin/registry.ts'
import { createRunJournal, type JournalDeps, type RunJournal } from './journal.ts'
import { createAdmissionFinisher, type FinishAtAdmission } from './finish-at-admission.ts'
import { createRunMachine, type RunActor, type RunMachine, statusOf } from './machine.ts'
import type { FreshRun, NodeRunner, RunEvent, RunMeta } from './types.ts'
import { DefinitionError, type Plan } from './plan.ts'
import { publishEvents } from '../../core/events.ts'
import { errorMessage } from '../../core/errors.ts'
import { type BranchesOf, startState, type Emitted, type RunInput, type RunState } from './state.ts'
import { restoreSnapshot } from './stored-snapshot.ts'
import { endRun } from './run-end.ts'
import type { createPlanCache } from './plan.ts'
import { createStartQueue, type ExecutorBacklog, type Queued } from './start-queue.ts'
import { nextTurn } from './next-turn.ts'
import { adaptiveConcurrency } from './adaptive-concurrency.ts'
import { BoundedMap } from '../../core/bounded-map.ts'

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
}

export interface Executor {
  /** A run admitted by this process with this worker as its owner. */
  enqueueFresh(run: FreshRun): void
  /** Runs a run of pure nodes to its end in the transaction that admits it (finish-at-admission.ts). */
  readonly finishAtAdmission: FinishAtAdmission
  /** Delivers inbox events to a run, loading it when it is not live here (if this worker may own it). */
  wake(runId: string): void
  /**
   * Like wake, resolving once the run is live here or found to need nothing (work-queue
   * backpressure); rejecting when the store failed as it started (the notification is handed out again).
   */
  take(runId: string): Promise<void>
  /** Whether the run is live in this process, or queued to start here. */
  has(runId: string): boolean
  /**
   * Queues every run that needs an executor and has none here: runs left running by a process
   * that stopped or died, and runs with inbox events nobody took. At start, and on every heartbeat.
   */
  sweep(): Promise<number>
  /** Resolves when no run is active or queued (tests, shutdown). */
  idle(): Promise<void>
  readonly active: number
  /** Runs it keeps going at once now: `concurrency`, or fewer while the event loop lags. */
  readonly concurrencyLimit: number
  /** Runs queued here and not started yet (the admission backlog of this process), and how many have started in all. */
  backlog(): ExecutorBacklog
  stop(graceMs: number): Promise<void>
}

export type { ExecutorBacklog }

interface Entry {
  runId: string
  phase: 'loading' | 'active' | 'stopping'
  actor?: RunActor
  journal?: RunJournal
  wakePending: boolean
  pulling: boolean
  repull?: boolean
  sent: Set<string>
}

/**
 * Starting a run executes its first nodes at once. Starting every admitted run in the turn
 * that commits it would hold back the answers to the requests being admitted meanwhile, so
 * runs start on later turns, a slice per turn: a small one while admissions keep coming, a
 * large one when the process is otherwise idle.
 */
const SLICE_WHILE_ADMITTING = 16
const SLICE_WHEN_IDLE = 256
/** Heartbeats (3 s apart by default) between two sweeps for this worker's own stale runs while runs are queued here. */
const OWN_SWEEP_EVERY = 20

/** The executor's counters and flags, in one named place (the maps and the start queue sit beside it). */
interface ExecutorState {
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

export function createExecutor(deps: ExecutorDeps): Executor {
  const machines = new BoundedMap<string, RunMachine>(1000)
  const entries = new Map<string, Entry>()
  const queue = createStartQueue()
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
  const branchesOf: BranchesOf = (type) => deps.registry.action(type)?.branches
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
    const activation = item.fresh ? activateFresh(entry, item.fresh, item.woken === true) : activateStored(entry)
    let failure: unknown
    activation
      .catch(async (error) => {
        deps.logger.error('could not start run', {
          runId: item.runId,
          error: error instanceof Error ? error.stack : String(error),
        })
        // A run whose definition cannot execute fails once, clearly, instead of being picked up
        // again on every sweep; a store that failed is tried again: a work-queue notification is
        // handed out again (take rejects), anything else waits for the sweep.
        if (error instanceof DefinitionError) await failUnstartable(item.runId, error.message)
        else failure = error
        release(entry)
      })
      .finally(() => item.taken?.(failure))
  }

  /** Live in this process, or queued to start here. */
  function isHere(runId: string): boolean {
    return entries.has(runId) || queue.has(runId)
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

  async function activateFresh(entry: Entry, fresh: FreshRun, woken: boolean) {
    const plan = deps.plans.get(fresh.meta.definitionHash, () => fresh.definition)
    const step = startState(fresh.input, plan, branchesOf, now())
    attach(entry, fresh.meta, plan, { input: step.state }, step.events, new Set())
    if (woken)
      deliverInbox(entry).catch((error) =>
        deps.logger.error('could not read run inbox', { runId: entry.runId, error: String(error) }),
      )
  }

  /** Takes ownership of a run and reads it (runs.acquire); undefined when it is not this worker's to run. */
  function acquire(runId: string): Promise<(RunRow & { has_inbox: unknown }) | undefined> {
    const stale = staleBefore()
    return deps.store.write((tx) => runs.acquire(tx, runId, deps.workerId, stale))
  }

  /** A stored definition (and its variable definitions), parsed once per hash: a hash names one body forever. */
  const definitions = new BoundedMap<string, { definition: Definition; variableDefs?: RunMeta['variableDefs'] }>(1000)
  async function storedDefinition(hash: string) {
    let stored = definitions.get(hash)
    if (!stored) {
      const body = await runs.definition(deps.store, hash)
      stored = parseJson<{ definition: Definition; variableDefs?: RunMeta['variableDefs'] }>(body?.body, {
        definition: { nodes: {} },
      })
      if (body) definitions.set(hash, stored)
    }
    return stored
  }

  async function activateStored(entry: Entry) {
    const row = await acquire(entry.runId)
    if (!row) return release(entry)
    const inbox = row.has_inbox ? await runInbox.of(deps.store, entry.runId) : []
    // A waiting run with nothing to deliver stays put away.
    if (row.status === 'waiting' && inbox.length === 0) return release(entry)
    const stored = await storedDefinition(row.definition_hash)
    const plan = deps.plans.get(row.definition_hash, () => stored.definition)
    const meta: RunMeta = {
      runId: row.id,
      organizationId: row.organization_id,
      workflowId: row.workflow_id,
      workflowVersion: row.workflow_version,
      automatic: Number(row.automatic) === 1,
      live: Number(row.live) === 1,
      definitionHash: row.definition_hash,
      variableDefs: stored.variableDefs ?? [],
      lastSeq: Number(row.last_seq),
      startedAt: Number(row.started_at),
      traceparent: row.traceparent ?? null,
      traceCaller: row.trace_caller ?? null,
    }
    if (row.snapshot) {
      const snapshot = restoreSnapshot(row.snapshot, row.trigger_event)
      const waited = new Set<string>(
        Object.values((snapshot.context as RunState).nodes)
          .filter((n) => n.wait)
          .map((n) => n.key),
      )
      attach(entry, meta, plan, { snapshot }, [], waited, true)
    } else {
      const input: RunInput = {
        runId: row.id,
        workflowId: row.workflow_id,
        organizationId: row.organization_id,
        workflowVersion: row.workflow_version,
        triggerNodeId: row.trigger_node_id,
        trigger: JSON.parse(row.trigger_event),
        vars: parseJson(row.vars, {}),
        props: parseJson(row.prop_values, {}),
        seed: parseJson(row.seed, undefined),
      }
      const step = startState(input, plan, branchesOf, now())
      attach(entry, meta, plan, { input: step.state }, step.events, new Set(), true)
    }
    entry.pulling = false
    await deliverInbox(entry, inbox)
    settleIfDone(entry)
  }

  function attach(
    entry: Entry,
    meta: RunMeta,
    plan: Plan,
    options: { input: RunState } | { snapshot: unknown },
    initial: readonly Emitted[],
    waited: Set<string>,
    restored = false,
  ) {
    const actor = createActor(machineFor(plan), options as never) as RunActor
    const read = () => {
      const snapshot = actor.getSnapshot()
      return {
        status: statusOf(snapshot),
        snapshot: actor.getPersistedSnapshot(),
        vars: snapshot.context.vars,
        error: snapshot.context.error,
      }
    }
    const journal = createRunJournal(deps, meta, read, waited, () => {
      // Another worker took this run over (this one was presumed dead): stop without writing.
      deps.logger.warn('lost ownership of a run; stopping it here', { runId: meta.runId })
      entry.phase = 'stopping'
      actor.stop()
      release(entry)
    })
    entry.actor = actor
    entry.journal = journal
    for (const e of initial) journal.append({ type: e.type, nodeId: e.nodeId, data: e.data })
    actor.on('*', (e) => journal.append(e as never))
    actor.subscribe({
      next: () => {
        journal.touch()
        if (!entry.pulling) settleIfDone(entry)
      },
      error: (error) => {
        deps.logger.error('run actor failed', { runId: meta.runId, error: String(error) })
        // The actor cannot go on: end the run as failed, so that it neither hangs nor comes back.
        entry.phase = 'stopping'
        void failUnstartable(meta.runId, `the run could not go on: ${errorMessage(error)}`).finally(() =>
          release(entry),
        )
      },
    })
    entry.phase = 'active'
    // A restored run gets its inbox before it may be put away again.
    entry.pulling = restored
    actor.start()
    if (!restored) settleIfDone(entry)
  }

  /** Ends a run that cannot execute as failed, with its run.failed event (nothing if it already ended). */
  async function failUnstartable(runId: string, message: string) {
    const end = { status: 'failure', at: now(), error: { message, code: 'unstartable' } } as const
    try {
      const recorded = await deps.store.write((tx) => endRun(tx, deps.recorder, runId, end))
      publishEvents(deps.bus, recorded)
    } catch (failure) {
      deps.logger.error('could not fail a run that cannot execute', { runId, error: String(failure) })
    }
  }

  function settleIfDone(entry: Entry) {
    if (entry.phase !== 'active' || !entry.actor) return
    const snapshot = entry.actor.getSnapshot()
    if (snapshot.status !== 'done' && statusOf(snapshot) !== 'waiting') return
    entry.phase = 'stopping'
    entry.journal!.flushed().then(() => {
      entry.actor!.stop()
      release(entry)
    })
  }

  async function deliverInbox(entry: Entry, rows?: Array<{ id: string; event: string }>) {
    if (entry.pulling) {
      entry.repull = true
      return
    }
    entry.pulling = true
    try {
      let inbox = rows
      do {
        entry.repull = false
        inbox ??= await runInbox.of(deps.store, entry.runId)
        for (const row of inbox) {
          if (entry.sent.has(row.id)) continue
          if (entry.phase !== 'active') {
            entry.wakePending = true
            return
          }
          entry.sent.add(row.id)
          entry.journal!.consumed(row.id)
          entry.actor!.send({ ...(JSON.parse(row.event) as RunEvent), inboxId: row.id })
        }
        inbox = undefined
      } while (entry.repull)
    } finally {
      entry.pulling = false
    }
    settleIfDone(entry)
  }

  return {
    finishAtAdmission: createAdmissionFinisher(deps, machineFor, branchesOf),
    enqueueFresh(run) {
      state.admittedSinceTurn++
      const organizationId = run.meta.organizationId
      enqueue(
        queue.keepsPayload()
          ? { runId: run.meta.runId, organizationId, fresh: run }
          : { runId: run.meta.runId, organizationId },
      )
    },
    has: isHere,
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
    wake(runId) {
      const entry = entries.get(runId)
      if (!entry) return enqueue({ runId, woken: true })
      if (entry.phase === 'active') {
        deliverInbox(entry).catch((error) =>
          deps.logger.error('could not read run inbox', { runId, error: String(error) }),
        )
      } else entry.wakePending = true
    },
    /** Runs that were running without a live owner, and runs with inbox events nobody took. */
    async sweep() {
      const stale = staleBefore()
      // Under a backlog, this worker's own stale runs are nearly all queued here: reading them
      // (tens of thousands) on every heartbeat would stall the event loop for nothing. So they
      // are looked for when the queue is empty, and at least every OWN_SWEEP_EVERY heartbeats.
      const own = queue.length === 0 || ++state.sweepsWithoutOwn >= OWN_SWEEP_EVERY
      if (own) state.sweepsWithoutOwn = 0
      const rows = await runs.needingExecution(deps.store, deps.workerId, stale, { own })
      let woken = 0
      for (const { id } of rows) {
        if (isHere(id)) continue
        enqueue({ runId: id })
        woken++
      }
      return woken
    },
    idle() {
      if (state.running === 0 && queue.length === 0) return Promise.resolve()
      return new Promise((resolve) => idleWaiters.push(resolve))
    },
    get active() {
      return state.running
    },
    get concurrencyLimit() {
      return limit.current()
    },
    backlog: () => queue.backlog(),
    async stop(graceMs) {
      state.stopped = true
      limit.stop()
      queue.clear()
      const deadline = now() + graceMs
      while (state.running > 0 && now() < deadline) await new Promise((r) => setTimeout(r, 20))
      await Promise.all(
        [...entries.values()].map(async (entry) => {
          await entry.journal?.flushed()
          entry.actor?.stop()
        }),
      )
    },
  }
}
