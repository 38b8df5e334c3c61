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
 * How nodes execute is in machine-steps.ts.
 */
import {
  type ActorRefFrom,
  type ActorRefFromLogic,
  emit,
  enqueueActions,
  fromPromise,
  type MetaObject,
  type NonReducibleUnknown,
  type PromiseActorLogic,
  setup,
  type SnapshotFrom,
  type StateMachine,
} from 'xstate'
import type { RunStatus } from '../../core/domain/run.ts'
import { END_EVENT, isTerminal } from '../../core/domain/run-lifecycle.ts'
import { awaitNode, chain, crashed, type MachineParts, settle } from './machine-steps.ts'
import type { Plan } from './plan.ts'
import { applyCancel, type BranchesOf, type Emitted, isWaiting, type RunState, type Step } from './state.ts'
import type { JournalEvent, NodeRunner, Outcome, ResumeTask, RunCommand } from './types.ts'

export { MAX_CHAIN } from './machine-steps.ts'

/** The logic of the invoked actor that awaits an executing node. */
type ExecuteNodeLogic = PromiseActorLogic<Outcome, { state: RunState }>
/** The logic of the invoked actor that resumes a waiting node. */
type ResumeNodeLogic = PromiseActorLogic<Outcome, ResumeTask>

/** The machine's states: the run statuses (`running` stands for `stepping` and `resuming` too) and two more. */
export type RunStateValue = 'stepping' | 'running' | 'waiting' | 'resuming' | RunEndState
type RunEndState = 'success' | 'partial' | 'failure' | 'cancelled'

type RunMachineActors =
  | { src: 'executeNode'; logic: ExecuteNodeLogic; id: string | undefined }
  | { src: 'resumeNode'; logic: ResumeNodeLogic; id: string | undefined }

/** One `{ type, params }` per name, as XState lists a machine's named actions and guards. */
type Named<Name extends string, Params> = { [N in Name]: { type: N; params: Params } }[Name]

type RunMachineActions =
  | Named<'settle' | 'chain' | 'cancel', undefined>
  | Named<'journalWaiting' | 'journalResumed' | `journal${Capitalize<RunEndState>}`, unknown>

type RunMachineGuards = Named<'hasFailed' | 'isWaiting' | 'isDone' | 'isPartial' | 'resumesCurrent', unknown>

/**
 * The run machine's type, declared rather than inferred: its context and input are the
 * RunState, it takes RunEvents and emits JournalEvents, and its named actors, actions, guards
 * and states are the ones `createRunMachine` sets up.
 */
export type RunMachine = StateMachine<
  RunState,
  RunCommand,
  { [id: string]: ActorRefFromLogic<ExecuteNodeLogic | ResumeNodeLogic> | undefined },
  RunMachineActors,
  RunMachineActions,
  RunMachineGuards,
  never,
  RunStateValue,
  string,
  RunState,
  NonReducibleUnknown,
  JournalEvent,
  MetaObject,
  { id: 'run'; states: { readonly [state in RunStateValue]: Record<never, never> } },
  MetaObject
>
/** A running run's actor. */
export type RunActor = ActorRefFrom<RunMachine>
/** A run actor's snapshot (persisted, its context is the RunState). */
export type RunSnapshot = SnapshotFrom<RunMachine>

/** The action that applies a step to the context and emits the step's events for the journal. */
const step = (fn: (state: RunState, event: RunCommand) => Step) =>
  enqueueActions<RunState, RunCommand, undefined, RunCommand, never, never, never, never, JournalEvent>(
    ({ context, event, enqueue }) => {
      const { state, events } = fn(context, event)
      enqueue.assign(() => state)
      for (const e of events) enqueue.emit(journal(e))
    },
  )

// Guards, named as the machine's transitions use them.
const hasFailed = ({ context }: { context: RunState }) => context.failed
const isDone = ({ context }: { context: RunState }) => context.current === null
const isPartial = ({ context }: { context: RunState }) => context.current === null && context.partial

/** A RESUME or TIMER for the waiting node (a wake only when it waits for a time). */
function resumesCurrent({ context, event }: { context: RunState; event: RunCommand }): boolean {
  if (event.type !== 'RESUME' && event.type !== 'TIMER') return false
  if (context.current?.key !== event.key) return false
  const wait = context.nodes[event.key]?.wait
  if (event.type === 'TIMER' && event.kind === 'wake') return wait?.until !== undefined
  return true
}

/** What the waiting state emits for the journal. */
const runWaiting = ({ context }: { context: RunState }) =>
  journal({ type: 'run.waiting', nodeId: null, data: { key: context.current?.key ?? null } })

/** What the resuming state emits for the journal: the node, and whether an event or a timer resumed it. */
const runResumed = ({ event }: { event: RunCommand }) =>
  journal({
    type: 'run.resumed',
    nodeId: null,
    data: { key: (event as { key?: string }).key ?? null, by: event.type === 'TIMER' ? event.kind : 'event' },
  })

/** The machine's named actors, guards and actions, over one run's parts. */
function runMachineSetup(parts: MachineParts) {
  const { plan, runner, now } = parts
  return setup({
    types: {
      context: {} as RunState,
      events: {} as RunCommand,
      input: {} as RunState,
      emitted: {} as JournalEvent,
    },
    actors: {
      executeNode: fromPromise<Outcome, { state: RunState }>(({ input, signal }) =>
        awaitNode(parts, input.state, signal),
      ),
      resumeNode: fromPromise<Outcome, ResumeTask>(({ input, signal }) =>
        runner.resume(plan, input, signal).catch(crashed),
      ),
    },
    guards: { hasFailed, isWaiting: ({ context }) => isWaiting(context), isDone, isPartial, resumesCurrent },
    actions: {
      settle: step((s, event) => settle(parts, s, (event as unknown as { output: Outcome }).output)),
      chain: step((s) => chain(parts, s)),
      cancel: step((s) => applyCancel(s, now())),
      journalWaiting: emit(runWaiting),
      journalResumed: emit(runResumed),
      journalSuccess: emit(() => journal({ type: END_EVENT.success, nodeId: null, data: {} })),
      journalPartial: emit(() => journal({ type: END_EVENT.partial, nodeId: null, data: {} })),
      journalFailure: emit(({ context }) =>
        journal({ type: END_EVENT.failure, nodeId: null, data: { error: context.error } }),
      ),
      journalCancelled: emit(({ event }) =>
        journal({
          type: END_EVENT.cancelled,
          nodeId: null,
          data: { reason: (event as { reason?: string }).reason ?? null },
        }),
      ),
    },
  })
}

export function createRunMachine(
  plan: Plan,
  runner: NodeRunner,
  branchesOf: BranchesOf,
  now: () => number,
): RunMachine {
  const parts: MachineParts = { plan, runner, branchesOf, now, started: new WeakMap() }
  return runMachineSetup(parts).createMachine({
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
        entry: 'journalWaiting',
        on: {
          RESUME: { guard: 'resumesCurrent', target: 'resuming' },
          TIMER: { guard: 'resumesCurrent', target: 'resuming' },
        },
      },
      resuming: {
        entry: 'journalResumed',
        invoke: {
          src: 'resumeNode',
          input: ({ context, event }) => ({ state: context, event: event as ResumeTask['event'] }),
          onDone: { target: 'stepping', actions: 'settle' },
        },
      },
      success: { type: 'final', entry: 'journalSuccess' },
      partial: { type: 'final', entry: 'journalPartial' },
      failure: { type: 'final', entry: 'journalFailure' },
      cancelled: { type: 'final', entry: 'journalCancelled' },
    },
    on: {
      CANCEL: { target: '.cancelled', actions: 'cancel' },
    },
  })
}

function journal(e: Emitted): JournalEvent {
  return { type: e.type, nodeId: e.nodeId, data: e.data }
}

/** The run status a machine snapshot stands for. */
export function statusOf(snapshot: { value: unknown; status: string }): RunStatus {
  // The machine's top-level states are named after the statuses: every other one is running.
  const value = snapshot.value
  if (typeof value === 'string' && (value === 'waiting' || isTerminal(value))) return value
  return 'running'
}
