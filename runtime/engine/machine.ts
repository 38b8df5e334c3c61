/**
 * The run machine: one XState actor per run, made from the run's compiled plan.
 *
 * States: `running` (entered once per node: it invokes the node, and the node's completion
 * settles its outcome, advances to the next node and re-enters), `waiting` (a node waits for
 * time or an event; the actor may be stopped and restored later), `resuming`, and the final
 * `success`, `partial`, `failure`, `cancelled`. The input state is already advanced to its
 * first node (see `startState`). The context is the RunState; every transition
 * is computed by the pure functions of state.ts, and the events a step produced are emitted
 * (`actor.on('*')`) for the journal. The machine performs no I/O: node execution and resumption
 * are invoked actors (`executeNode`, `resumeNode`), referenced by name so snapshots persist.
 */
import { type ActorRefFrom, emit, enqueueActions, fromPromise, setup, type SnapshotFrom } from 'xstate'
import type { Plan } from './plan.ts'
import { advance, applyCancel, applyOutcome, type BranchesOf, type Emitted, isWaiting, type Outcome, type RunState, type Step } from './state.ts'

export type RunEvent =
  | { type: 'RESUME'; key: string; data: unknown; inboxId?: string }
  | { type: 'TIMER'; key: string; kind: 'wake' | 'timeout'; inboxId?: string }
  | { type: 'CANCEL'; reason?: string; inboxId?: string }

export type JournalEvent = { type: string; nodeId: string | null; data: Record<string, unknown> }

export interface ResumeTask {
  readonly state: RunState
  readonly event: RunEvent & ({ type: 'RESUME' } | { type: 'TIMER' })
}

export interface NodeRunner {
  execute(plan: Plan, state: RunState, signal: AbortSignal): Promise<Outcome>
  resume(plan: Plan, task: ResumeTask, signal: AbortSignal): Promise<Outcome>
}

const crashed = (error: unknown): Outcome => ({
  kind: 'failure', error: `internal error: ${error instanceof Error ? error.message : String(error)}`, retryable: false,
})

export function createRunMachine(plan: Plan, runner: NodeRunner, branchesOf: BranchesOf, now: () => number) {
  const step = (fn: (state: RunState, event: RunEvent) => Step) =>
    enqueueActions<RunState, RunEvent, undefined, RunEvent, never, never, never, never, JournalEvent>(({ context, event, enqueue }) => {
      const { state, events } = fn(context, event)
      enqueue.assign(() => state)
      for (const e of events) enqueue.emit(journal(e))
    })

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
      executeNode: fromPromise<Outcome, { state: RunState }>(({ input, signal }) => runner.execute(plan, input.state, signal).catch(crashed)),
      resumeNode: fromPromise<Outcome, ResumeTask>(({ input, signal }) => runner.resume(plan, input, signal).catch(crashed)),
    },
    guards: {
      hasFailed: ({ context }) => context.failed,
      isWaiting: ({ context }) => isWaiting(context),
      isDone: ({ context }) => context.current === null,
      isPartial: ({ context }) => context.partial,
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
      cancel: step((s) => applyCancel(s, now())),
    },
  }).createMachine({
    id: 'run',
    context: ({ input }) => input,
    initial: 'running',
    states: {
      // One node executes per entry; its completion settles, advances and re-enters.
      running: {
        always: [
          { guard: 'hasFailed', target: 'failure' },
          { guard: 'isWaiting', target: 'waiting' },
          { guard: 'isDone', target: 'completing' },
        ],
        invoke: {
          src: 'executeNode',
          input: ({ context }) => ({ state: context }),
          onDone: { target: 'running', reenter: true, actions: 'settle' },
        },
      },
      waiting: {
        entry: emit(({ context }) => journal({ type: 'run.waiting', nodeId: null, data: { key: context.current?.key ?? null } })),
        on: {
          RESUME: { guard: 'resumesCurrent', target: 'resuming' },
          TIMER: { guard: 'resumesCurrent', target: 'resuming' },
        },
      },
      resuming: {
        entry: emit(({ event }) => journal({ type: 'run.resumed', nodeId: null, data: { key: (event as { key?: string }).key ?? null, by: event.type === 'TIMER' ? event.kind : 'event' } })),
        invoke: {
          src: 'resumeNode',
          input: ({ context, event }) => ({ state: context, event: event as ResumeTask['event'] }),
          onDone: { target: 'running', actions: 'settle' },
        },
      },
      completing: {
        always: [{ guard: 'isPartial', target: 'partial' }, { target: 'success' }],
      },
      success: { type: 'final', entry: emit(() => journal({ type: 'run.succeeded', nodeId: null, data: {} })) },
      partial: { type: 'final', entry: emit(() => journal({ type: 'run.partial', nodeId: null, data: {} })) },
      failure: { type: 'final', entry: emit(({ context }) => journal({ type: 'run.failed', nodeId: null, data: { error: context.error } })) },
      cancelled: { type: 'final', entry: emit(({ event }) => journal({ type: 'run.cancelled', nodeId: null, data: { reason: (event as { reason?: string }).reason ?? null } })) },
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
export function statusOf(snapshot: { value: unknown; status: string }): 'running' | 'waiting' | 'success' | 'partial' | 'failure' | 'cancelled' {
  const value = snapshot.value
  if (typeof value === 'string') {
    if (value === 'waiting') return 'waiting'
    if (value === 'success' || value === 'partial' || value === 'failure' || value === 'cancelled') return value
  }
  return 'running'
}
