/**
 * The run machine: one XState actor per run, made from the run's compiled plan.
 *
 * States: `stepping` (executes every node whose handler answers synchronously, in one
 * transition), `running` (invokes a node that has to be awaited; its completion settles its
 * outcome, advances to the next node and steps on), `waiting` (a node waits for
 * time or an event; the actor may be stopped and restored later), `resuming`, and the final
 * `success`, `partial`, `failure`, `cancelled`. The input state is already advanced to its
 * first node (see `startState`). The context is the RunState; every transition
 * is computed by the pure functions of state.ts, and the events a step produced are emitted
 * (`actor.on('*')`) for the journal. The machine performs no I/O: a handler that answers
 * synchronously cannot wait for any, and whatever has to be awaited (and resumption) runs in
 * invoked actors (`executeNode`, `resumeNode`), referenced by name so snapshots persist.
 */
import { type ActorRefFrom, emit, enqueueActions, fromPromise, setup, type SnapshotFrom } from 'xstate'
import type { RunStatus } from '../../core/domain/run.ts'
import { END_EVENT, isTerminal } from '../../core/domain/run-lifecycle.ts'
import { nextTurn } from './next-turn.ts'
import type { Plan } from './plan.ts'
import {
  advance,
  applyCancel,
  applyOutcome,
  type BranchesOf,
  type Emitted,
  isWaiting,
  type RunState,
  type Step,
} from './state.ts'
import type { JournalEvent, NodeRunner, Outcome, PendingOutcome, ResumeTask, RunEvent } from './types.ts'

export const isPending = (result: Outcome | PendingOutcome): result is PendingOutcome => 'pending' in result

const crashed = (error: unknown): Outcome => ({
  kind: 'failure',
  error: `internal error: ${error instanceof Error ? error.message : String(error)}`,
  retryable: false,
})

/** Nodes a chain executes in one transition before it yields to the event loop. */
export const MAX_CHAIN = 256

export function createRunMachine(plan: Plan, runner: NodeRunner, branchesOf: BranchesOf, now: () => number) {
  const step = (fn: (state: RunState, event: RunEvent) => Step) =>
    enqueueActions<RunState, RunEvent, undefined, RunEvent, never, never, never, never, JournalEvent>(
      ({ context, event, enqueue }) => {
        const { state, events } = fn(context, event)
        enqueue.assign(() => state)
        for (const e of events) enqueue.emit(journal(e))
      },
    )

  /**
   * Nodes a chain step started whose handlers answered with a promise, for the invoked actor
   * that awaits them. Keyed by the context's `current` object: XState copies the context on
   * every assign, but shallowly, so `current` is the very object the invocation's input holds.
   * A restored snapshot brings new objects, finds nothing, and executes the node again.
   */
  const started = new WeakMap<object, PendingOutcome>()

  const execute = (state: RunState): Outcome | PendingOutcome => {
    try {
      return runner.execute(plan, state)
    } catch (error) {
      return crashed(error)
    }
  }

  /**
   * Executes nodes as long as their handlers answer synchronously, all in one transition,
   * instead of one invoked actor (and its promise, events and snapshots) per node. The events
   * are the same, in the same order, as if each node had been invoked alone.
   */
  const chain = (state: RunState): Step => {
    let s = state
    const events: Emitted[] = []
    for (let executed = 0; s.current && !s.failed && !isWaiting(s); executed++) {
      if (executed === MAX_CHAIN) {
        // A long chain (a loop over many items) gives the event loop a turn now and then, so
        // one run cannot hold back requests, heartbeats and other runs for its whole length.
        started.set(s.current, onNextTurn(s))
        break
      }
      const result = execute(s)
      if (isPending(result)) {
        started.set(s.current, result)
        break
      }
      const next = settle(s, result)
      s = next.state
      for (const e of next.events) events.push(e)
    }
    return { state: s, events }
  }

  /** Executes the current node on a later turn of the event loop (not at all once aborted). */
  const onNextTurn = (state: RunState): PendingOutcome => {
    let inner: PendingOutcome | null = null
    let aborted = false
    const pending = new Promise<void>((resolve) => nextTurn(resolve)).then((): Outcome | Promise<Outcome> => {
      if (aborted) return crashed(new Error('the run was stopped'))
      const result = execute(state)
      if (!isPending(result)) return result
      inner = result
      return result.pending
    })
    return {
      pending,
      abort(reason) {
        aborted = true
        inner?.abort(reason)
      },
    }
  }

  /** The node the chain left pending, or (restored, or after a resume) the current node executed now. */
  const awaitNode = (state: RunState, signal: AbortSignal): Promise<Outcome> => {
    const current = state.current!
    const result = started.get(current) ?? execute(state)
    started.delete(current)
    if (!isPending(result)) return Promise.resolve(result)
    signal.addEventListener('abort', () => result.abort(signal.reason), { once: true })
    return result.pending.catch(crashed)
  }

  /** Applies what a node produced and moves to the next node, in one step. */
  const settle = (state: RunState, outcome: Outcome): Step => {
    const applied = applyOutcome(state, plan, branchesOf, outcome, now())
    if (applied.state.failed || isWaiting(applied.state)) return applied
    const next = advance(applied.state, plan, branchesOf, now())
    return { state: next.state, events: [...applied.events, ...next.events] }
  }

  return setup({
    types: {
      context: {} as RunState,
      events: {} as RunEvent,
      input: {} as RunState,
      emitted: {} as JournalEvent,
    },
    actors: {
      executeNode: fromPromise<Outcome, { state: RunState }>(({ input, signal }) => awaitNode(input.state, signal)),
      resumeNode: fromPromise<Outcome, ResumeTask>(({ input, signal }) =>
        runner.resume(plan, input, signal).catch(crashed),
      ),
    },
    guards: {
      hasFailed: ({ context }) => context.failed,
      isWaiting: ({ context }) => isWaiting(context),
      isDone: ({ context }) => context.current === null,
      isPartial: ({ context }) => context.current === null && context.partial,
      resumesCurrent: ({ context, event }) => {
        if (event.type !== 'RESUME' && event.type !== 'TIMER') return false
        if (context.current?.key !== event.key) return false
        const wait = context.nodes[event.key]?.wait
        if (event.type === 'TIMER' && event.kind === 'wake') return wait?.until !== undefined
        return true
      },
    },
    actions: {
      settle: step((s, event) => settle(s, (event as unknown as { output: Outcome }).output)),
      chain: step((s) => chain(s)),
      cancel: step((s) => applyCancel(s, now())),
    },
  }).createMachine({
    id: 'run',
    context: ({ input }) => input,
    initial: 'stepping',
    states: {
      // Executes the synchronous nodes from here on, then moves to where the run stands.
      stepping: {
        entry: 'chain',
        always: [
          { guard: 'hasFailed', target: 'failure' },
          { guard: 'isWaiting', target: 'waiting' },
          // Done: partial when a branch failed and was tolerated, else success (one transition, not two).
          { guard: 'isPartial', target: 'partial' },
          { guard: 'isDone', target: 'success' },
          { target: 'running' },
        ],
      },
      // One asynchronous node executes; its completion settles, advances and steps on.
      running: {
        invoke: {
          src: 'executeNode',
          input: ({ context }) => ({ state: context }),
          onDone: { target: 'stepping', actions: 'settle' },
        },
      },
      waiting: {
        entry: emit(({ context }) =>
          journal({ type: 'run.waiting', nodeId: null, data: { key: context.current?.key ?? null } }),
        ),
        on: {
          RESUME: { guard: 'resumesCurrent', target: 'resuming' },
          TIMER: { guard: 'resumesCurrent', target: 'resuming' },
        },
      },
      resuming: {
        entry: emit(({ event }) =>
          journal({
            type: 'run.resumed',
            nodeId: null,
            data: { key: (event as { key?: string }).key ?? null, by: event.type === 'TIMER' ? event.kind : 'event' },
          }),
        ),
        invoke: {
          src: 'resumeNode',
          input: ({ context, event }) => ({ state: context, event: event as ResumeTask['event'] }),
          onDone: { target: 'stepping', actions: 'settle' },
        },
      },
      success: { type: 'final', entry: emit(() => journal({ type: END_EVENT.success, nodeId: null, data: {} })) },
      partial: { type: 'final', entry: emit(() => journal({ type: END_EVENT.partial, nodeId: null, data: {} })) },
      failure: {
        type: 'final',
        entry: emit(({ context }) =>
          journal({ type: END_EVENT.failure, nodeId: null, data: { error: context.error } }),
        ),
      },
      cancelled: {
        type: 'final',
        entry: emit(({ event }) =>
          journal({
            type: END_EVENT.cancelled,
            nodeId: null,
            data: { reason: (event as { reason?: string }).reason ?? null },
          }),
        ),
      },
    },
    on: {
      CANCEL: { target: '.cancelled', actions: 'cancel' },
    },
  })
}

function journal(e: Emitted): JournalEvent {
  return { type: e.type, nodeId: e.nodeId, data: e.data }
}

export type RunMachine = ReturnType<typeof createRunMachine>
export type RunActor = ActorRefFrom<RunMachine>
export type RunSnapshot = SnapshotFrom<RunMachine>

/** The run status a machine snapshot stands for. */
export function statusOf(snapshot: { value: unknown; status: string }): RunStatus {
  // The machine's top-level states are named after the statuses: every other one is running.
  const value = snapshot.value
  if (typeof value === 'string' && (value === 'waiting' || isTerminal(value))) return value
  return 'running'
}
