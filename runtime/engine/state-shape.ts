/**
 * The shape of a run's state (the run machine's context, persisted in the run's snapshot) and
 * the few values every transition of state.ts shares: the limits and the instance keys.
 */
import type { NodeStatus, RunError } from '../../core/domain/run.ts'
import type { TriggerEvent } from '../../core/ports/engine.ts'
import type { WaitRequest } from '../../core/plugin/sdk.ts'

export const LIMITS = Object.freeze({ iterationsPerLoop: 100, loopNesting: 10, executionsPerRun: 10_000 })

export interface LoopScope {
  readonly loopId: string
  readonly index: number
  readonly item: unknown
}

export type Frame =
  | {
      readonly kind: 'node'
      readonly nodeId: string
      readonly scope: readonly LoopScope[]
      readonly retryDelayMs?: number
    }
  | { readonly kind: 'loop'; readonly nodeId: string; readonly scope: readonly LoopScope[] }

export interface WaitInfo extends WaitRequest {
  readonly startedAt: number
  readonly kind: 'scheduled' | 'waiting'
}

export interface NodeInstance {
  readonly nodeId: string
  readonly key: string
  readonly type: string
  readonly status: NodeStatus
  readonly attempts: number
  readonly input?: unknown
  readonly result?: unknown
  readonly error?: string | null
  readonly branch?: string
  readonly startedAt?: number
  readonly finishedAt?: number
  readonly wait?: WaitInfo
  readonly reused?: boolean
  readonly scope?: readonly { loopId: string; index: number }[]
}

export interface LoopState {
  readonly items: readonly unknown[]
  readonly next: number
  readonly failed: boolean
}

export interface RunState {
  readonly runId: string
  readonly workflowId: string
  readonly organizationId: string
  readonly workflowVersion: number
  readonly triggerNodeId: string
  readonly trigger: TriggerEvent
  readonly vars: Readonly<Record<string, unknown>>
  readonly props: Readonly<Record<string, unknown>>
  readonly nodes: Readonly<Record<string, NodeInstance>>
  readonly stack: readonly Frame[]
  readonly loops: Readonly<Record<string, LoopState>>
  /** The node instance being executed or waited on. */
  readonly current: { readonly key: string; readonly frame: Frame & { kind: 'node' } } | null
  readonly executions: number
  readonly failed: boolean
  readonly partial: boolean
  readonly error: RunError | null
  /** Results reused from an earlier run (a retry), by instance key. */
  readonly seed: Readonly<Record<string, { result: unknown; branch?: string; input?: unknown }>>
}

export interface Emitted {
  readonly type: string
  readonly nodeId: string | null
  readonly data: Record<string, unknown>
}

export interface Step {
  readonly state: RunState
  readonly events: readonly Emitted[]
}

export interface RunInput {
  readonly runId: string
  readonly workflowId: string
  readonly organizationId: string
  readonly workflowVersion: number
  readonly triggerNodeId: string
  readonly trigger: TriggerEvent
  readonly vars: Record<string, unknown>
  readonly props: Record<string, unknown>
  readonly seed?: RunState['seed']
}

export const instanceKey = (nodeId: string, scope: readonly { index: number }[]) =>
  scope.length === 0 ? nodeId : `${nodeId}[${scope.map((s) => s.index).join('][')}]`

export const scopeRefs = (scope: readonly LoopScope[]) => scope.map(({ loopId, index }) => ({ loopId, index }))

/** Whether a node's children are chosen by branch (and which branch names it has), by its type and version. */
export type BranchesOf = (type: string, version?: number) => readonly string[] | undefined
