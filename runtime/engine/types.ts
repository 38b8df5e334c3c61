/**
 * The runtime's contracts, in one place (as XState keeps its types.ts): what a run is made of
 * when admitted (FreshRun, RunMeta, RunInput), what a node's execution answers (Outcome,
 * PendingOutcome), the commands a run's actor takes (RunCommand) and emits for its journal
 * (JournalEvent), and the parts the engine is assembled from: the node runner the machine calls,
 * the journal that persists a live run, the executor of live runs, the dispatcher that admits
 * them, the event recorder, the admission backlog, and the engine itself. Implementations live
 * beside it: dispatch.ts builds FreshRuns, executor.ts runs them, machine.ts and state.ts step
 * them, node-runner.ts executes nodes, journal.ts persists them, runtime/index.ts assembles them.
 * Core's view of the engine (Dispatcher, RunControl, ...) is core/ports/engine.ts.
 */
import type { Definition, VariableDef } from '../../core/domain/workflow.ts'
import type { DomainEvent, RecordedEvent } from '../../core/domain-events.ts'
import type { WaitRequest } from '../../core/plugin/sdk.ts'
import type {
  BacklogReport,
  DefinitionChecker,
  DispatchRequest,
  DispatchResult,
  Dispatcher,
  DomainEventRecorder,
  EventRouter,
  RunControl,
  RunProjection,
} from '../../core/ports/engine.ts'
import type { SqlExecutor, Statement } from '../../core/ports/store.ts'
import type { TriggerIndex } from '../integrations/trigger-index.ts'
import type { Reconciler } from '../schedules/reconcile.ts'
import type { ScheduleTicker } from '../schedules/scheduler.ts'
import type { Poller } from '../polls/poller.ts'
import type { SubscriptionKeeper } from '../subscriptions/keeper.ts'
import type { DurableTimers } from '../timers.ts'
import type { FinishAtAdmission } from './finish-at-admission.ts'
import type { Plan } from './plan.ts'
import type { ExecutorBacklog, QueuePlace } from './start-queue.ts'
import type { RunInput, RunState } from './state.ts'
import type { NodeTester } from '../../core/ports/node-tester.ts'

export type { RunInput } from './state.ts'

/** What admission hands the executor: enough to start the run without reading it back. */
export interface FreshRun {
  readonly meta: RunMeta
  readonly input: RunInput
  readonly definition: Definition
  /** Its flow control's priority (−100 to 100; absent: 0), for the order runs start in. */
  readonly priority?: number
}

/** What the journal needs to know of a run while it persists it. */
export interface RunMeta {
  readonly runId: string
  readonly organizationId: string
  readonly workflowId: string
  readonly workflowVersion: number
  readonly automatic: boolean
  readonly live: boolean
  readonly definitionHash: string
  readonly variableDefs: readonly VariableDef[]
  readonly lastSeq: number
  /** When the run was admitted (for its duration). */
  readonly startedAt?: number
  /** The run's span context and the caller's it continues (tracing). */
  readonly traceparent?: string | null
  readonly traceCaller?: string | null
}

/** What a node's execution answers. */
export type Outcome =
  | {
      readonly kind: 'success'
      readonly result: unknown
      readonly branch?: string
      readonly input?: unknown
      readonly vars?: Readonly<Record<string, unknown>>
      readonly logs?: readonly string[]
    }
  | {
      readonly kind: 'failure'
      readonly error: string
      readonly retryable?: boolean
      readonly input?: unknown
      readonly code?: string
      readonly logs?: readonly string[]
    }
  | { readonly kind: 'wait'; readonly wait: WaitRequest; readonly input?: unknown }
  | { readonly kind: 'loop'; readonly items: readonly unknown[]; readonly input?: unknown }

/** A node whose handler has not answered yet; `abort` cancels it (the run was cancelled or put away). */
export interface PendingOutcome {
  readonly pending: Promise<Outcome>
  abort(reason: unknown): void
}

/** Events a run's actor takes from its inbox. */
export type RunCommand =
  | { type: 'RESUME'; key: string; data: unknown; inboxId?: string }
  | { type: 'TIMER'; key: string; kind: 'wake' | 'timeout'; inboxId?: string }
  | { type: 'CANCEL'; reason?: string; inboxId?: string }

/** What a run's actor emits for its journal (`run.*` and `node.*` events). */
export type JournalEvent = { type: string; nodeId: string | null; data: Record<string, unknown> }

/** A waiting node being resumed (by data or a timer). */
export interface ResumeTask {
  readonly state: RunState
  readonly event: RunCommand & ({ type: 'RESUME' } | { type: 'TIMER' })
}

/** Executes a run's nodes for its machine: at once when the handler answers synchronously, else pending. */
export interface NodeRunner {
  /** Executes the current node: its outcome when the handler answered synchronously, else pending. */
  execute(plan: Plan, state: RunState): Outcome | PendingOutcome
  resume(plan: Plan, task: ResumeTask, signal: AbortSignal): Promise<Outcome>
  /**
   * Reads what `execute` needs of an organization and a workflow (secret masks, sensitive
   * props) when it is not at hand, so that a synchronous handler answers at once; undefined when
   * it is at hand.
   */
  ready?(organizationId: string, workflowId: string): Promise<unknown> | undefined
}

/** A live run's journal: numbers its events and writes them with its state, a transaction per tick. */
export interface RunJournal {
  append(event: JournalEvent): void
  /** Marks inbox rows as consumed; they are deleted with the next flush. */
  consumed(inboxId: string): void
  /** The actor moved: `status` and `snapshot` are read at flush time. */
  touch(): void
  /** Resolves when everything appended so far is committed. */
  flushed(): Promise<void>
  readonly lastSeq: number
}

/** The executor of live runs: keeps them in memory as actors while they run, and puts them away when they wait. */
export interface Executor {
  /** A run admitted by this process with this worker as its owner. */
  enqueueFresh(run: FreshRun): void
  /** Runs a run of pure nodes to its end in the transaction that admits it (finish-at-admission.ts). */
  readonly finishAtAdmission: FinishAtAdmission
  /**
   * Delivers inbox events to a run, loading it when it is not live here (if this worker may own it);
   * `place`: where it waits to start (a run a flow-control release let go).
   */
  wake(runId: string, place?: QueuePlace): void
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

/** The engine's dispatcher: the port, plus admission inside a caller's transaction. */
export interface EngineDispatcher extends Dispatcher {
  /**
   * Runs `work` in one store transaction in which `admit` admits runs; they start after the
   * commit. A caller can so claim something and admit the run it pays for atomically (a
   * schedule tick): both commit, or neither does.
   */
  transaction<T>(
    work: (tx: SqlExecutor, admit: (request: DispatchRequest) => Promise<DispatchResult>) => Promise<T>,
  ): Promise<T>
}

/** Acts on recorded events in the transaction that records them (the execution-hook outbox, schedules). */
export type TransactionalListener = (tx: SqlExecutor, events: readonly RecordedEvent[]) => Promise<void>

/** The engine's event recorder: records domain events and lets its listeners act in the same transaction. */
export interface EventRecorder extends DomainEventRecorder {
  /**
   * `record`, running `also` with the journal's rows (one statement on Postgres); resolves to the
   * events and the rows each statement of `also` changed. The listeners act after all of it, in
   * the same transaction, as after `record`.
   */
  recordWith(
    tx: SqlExecutor,
    events: readonly DomainEvent[],
    also: readonly Statement[],
  ): Promise<{ recorded: RecordedEvent[]; changed: number[] }>
  listen(listener: TransactionalListener): void
}

/** The bound on runs admitted and not started yet (AUTOMATON_MAX_BACKLOG). */
export interface Backlog {
  /** Throws 429 when the installation's backlog, or this organization's share, is full. */
  check(organizationId: string): void
  /** Counts a run this process admitted (before the source sees it). */
  admitted(organizationId: string): void
  report(): BacklogReport
  stop(): void
}

/** What a process runs: everything (`embedded`), admission only (`api`), or execution only (`worker`). */
export type EngineRole = 'embedded' | 'api' | 'worker'

/** The engine, assembled (runtime/index.ts): its parts, as the composition root wires them into core, and its lifecycle. */
export interface Engine {
  /** Tells whoever executes a run that it has inbox events (a resume, a timer, a cancel). */
  wake(runId: string): void
  readonly recorder: EventRecorder
  readonly checker: DefinitionChecker
  readonly dispatcher: EngineDispatcher
  readonly control: RunControl
  readonly executor: Executor
  readonly timers: DurableTimers
  readonly schedules: ScheduleTicker
  /** Polls the live polling triggers and starts a run per new item. */
  readonly polls: Poller
  /** Enables trigger subscriptions before a publish commits, and renews and removes them in the background. */
  readonly subscriptions: SubscriptionKeeper
  readonly reconciler: Reconciler
  readonly triggerIndex: TriggerIndex
  readonly router: EventRouter
  readonly projection: RunProjection
  /** Runs one node of a draft again with an earlier run's inputs, writing nothing (the editor's node test). */
  readonly nodeTester: NodeTester
  readonly role: EngineRole
  /** The admission backlog (for /readyz), or null when unbounded. */
  backlog(): BacklogReport | null
  /** Runs the executor keeps going at once now (fewer than its concurrency while the event loop lags). */
  concurrencyLimit(): number
  /**
   * Workers: register, recover unfinished runs, take work, fire timers and schedule ticks.
   * The API role does none of it.
   */
  start(): Promise<void>
  /** Stops taking work and lets live runs flush, for at most `graceMs`. */
  stop(graceMs: number): Promise<void>
}
