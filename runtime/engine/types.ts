/**
 * The engine's contracts, in one place (as XState keeps its types.ts): what a run is made of
 * when admitted (FreshRun, RunMeta, RunInput), what a node's execution answers (Outcome,
 * PendingOutcome), the events a run's actor takes (RunEvent) and emits for its journal
 * (JournalEvent), and the node runner the machine calls. Implementations live beside it:
 * dispatch.ts builds FreshRuns, executor.ts runs them, machine.ts and state.ts step them,
 * node-runner.ts executes nodes, journal.ts persists them.
 */
import type { Definition, VariableDef } from '../../core/domain/workflow.ts'
import type { WaitRequest } from '../../core/plugin/sdk.ts'
import type { Plan } from './plan.ts'
import type { RunInput, RunState } from './state.ts'

export type { RunInput } from './state.ts'

/** What admission hands the executor: enough to start the run without reading it back. */
export interface FreshRun {
  readonly meta: RunMeta
  readonly input: RunInput
  readonly definition: Definition
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
export type RunEvent =
  | { type: 'RESUME'; key: string; data: unknown; inboxId?: string }
  | { type: 'TIMER'; key: string; kind: 'wake' | 'timeout'; inboxId?: string }
  | { type: 'CANCEL'; reason?: string; inboxId?: string }

/** What a run's actor emits for its journal (`run.*` and `node.*` events). */
export type JournalEvent = { type: string; nodeId: string | null; data: Record<string, unknown> }

/** A waiting node being resumed (by data or a timer). */
export interface ResumeTask {
  readonly state: RunState
  readonly event: RunEvent & ({ type: 'RESUME' } | { type: 'TIMER' })
}

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
