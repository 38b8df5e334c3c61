/**
 * The run state and its pure transitions. The run machine keeps a RunState as its context and
 * calls these functions; each returns a new state and the events the step produced (which the
 * machine emits for the journal). Nothing here performs I/O or reads the clock.
 *
 * Execution is depth-first and sequential: a node's children run after it completes, in the
 * order listed, each child's subtree before the next child; a for-each runs its loop body once
 * per item, in order, then its own children.
 */
import type { NodeStatus, RunError } from '../../core/domain/run.ts'
import type { TriggerEvent } from '../../core/ports/engine.ts'
import type { WaitRequest } from '../../core/plugin/sdk.ts'
import type { Plan } from './plan.ts'
import type { Outcome } from './types.ts'

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

interface LoopState {
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

const scopeRefs = (scope: readonly LoopScope[]) => scope.map(({ loopId, index }) => ({ loopId, index }))

/** Whether a node's children are chosen by branch (and which branch names it has). */
export type BranchesOf = (type: string) => readonly string[] | undefined

// --- start ------------------------------------------------------------------------------------

export function createRunState(input: RunInput, plan: Plan, branchesOf: BranchesOf, now: number): Step {
  const trigger = plan.node(input.triggerNodeId)
  const instance: NodeInstance = {
    nodeId: trigger.id,
    key: trigger.id,
    type: trigger.type,
    status: 'success',
    attempts: 1,
    input: trigger.def.payload ?? {},
    result: input.trigger,
    startedAt: now,
    finishedAt: now,
  }
  const base: RunState = {
    runId: input.runId,
    workflowId: input.workflowId,
    organizationId: input.organizationId,
    workflowVersion: input.workflowVersion,
    triggerNodeId: input.triggerNodeId,
    trigger: input.trigger,
    vars: input.vars,
    props: input.props,
    nodes: { [trigger.id]: instance },
    stack: [],
    loops: {},
    current: null,
    executions: 0,
    failed: false,
    partial: false,
    error: null,
    seed: input.seed ?? {},
  }
  const events: Emitted[] = [
    {
      type: 'node.succeeded',
      nodeId: trigger.id,
      data: { key: trigger.id, attempt: 1, result: input.trigger, trigger: true },
    },
  ]
  const pushed = pushChildren(base, plan, branchesOf, trigger.id, [], undefined, now)
  return { state: pushed.state, events: [...events, ...pushed.events] }
}

/** A new run's state, advanced to its first node: the run machine's input. */
export function startState(input: RunInput, plan: Plan, branchesOf: BranchesOf, now: number): Step {
  const created = createRunState(input, plan, branchesOf, now)
  const advanced = advance(created.state, plan, branchesOf, now)
  return { state: advanced.state, events: [...created.events, ...advanced.events] }
}

// --- moving on --------------------------------------------------------------------------------

/**
 * Pops frames until a node must execute (it becomes `current`) or nothing is left. Loop frames,
 * reused (retry) nodes and limits are handled here.
 */
export function advance(state: RunState, plan: Plan, branchesOf: BranchesOf, now: number): Step {
  let s = state
  const events: Emitted[] = []
  while (s.stack.length > 0 && !s.failed) {
    const frame = s.stack[s.stack.length - 1]
    s = { ...s, stack: s.stack.slice(0, -1) }
    if (frame.kind === 'loop') {
      const step = nextIteration(s, plan, branchesOf, frame, now)
      s = step.state
      events.push(...step.events)
      continue
    }
    const key = instanceKey(frame.nodeId, frame.scope)
    const node = plan.node(frame.nodeId)
    const reused = s.seed[key]
    if (reused && !frame.retryDelayMs) {
      const instance: NodeInstance = {
        nodeId: node.id,
        key,
        type: node.type,
        status: 'success',
        attempts: 0,
        input: reused.input,
        result: reused.result,
        branch: reused.branch,
        startedAt: now,
        finishedAt: now,
        reused: true,
        scope: scopeRefs(frame.scope),
      }
      s = { ...s, nodes: { ...s.nodes, [key]: instance } }
      events.push({
        type: 'node.succeeded',
        nodeId: node.id,
        data: { key, attempt: 0, result: reused.result, branch: reused.branch, reused: true },
      })
      const pushed = pushChildren(s, plan, branchesOf, node.id, frame.scope, reused.branch, now)
      s = pushed.state
      events.push(...pushed.events)
      continue
    }
    if (s.executions >= LIMITS.executionsPerRun) {
      const error = `the run reached the limit of ${LIMITS.executionsPerRun} node executions`
      return { state: { ...s, failed: true, error: { message: error, nodeId: node.id, code: 'limit' } }, events }
    }
    const previous = s.nodes[key]
    const attempts = (previous?.attempts ?? 0) + 1
    const instance: NodeInstance = {
      nodeId: node.id,
      key,
      type: node.type,
      status: 'running',
      attempts,
      startedAt: previous?.startedAt ?? now,
      scope: scopeRefs(frame.scope),
    }
    s = { ...s, nodes: { ...s.nodes, [key]: instance }, current: { key, frame }, executions: s.executions + 1 }
    events.push({ type: 'node.started', nodeId: node.id, data: { key, attempt: attempts, type: node.type } })
    return { state: s, events }
  }
  return { state: { ...s, current: null }, events }
}

function nextIteration(state: RunState, plan: Plan, branchesOf: BranchesOf, frame: Frame, now: number): Step {
  const key = instanceKey(frame.nodeId, frame.scope)
  const loop = state.loops[key]
  const node = plan.node(frame.nodeId)
  if (loop.next < loop.items.length) {
    const index = loop.next
    const scope = [...frame.scope, { loopId: node.id, index, item: loop.items[index] }]
    const body = [...node.loopBody].reverse().map((nodeId): Frame => ({ kind: 'node', nodeId, scope }))
    return {
      state: {
        ...state,
        loops: { ...state.loops, [key]: { ...loop, next: index + 1 } },
        stack: [...state.stack, frame, ...body],
      },
      events: [],
    }
  }
  // Every item done: the loop's result gathers each iteration's body results.
  const results = loop.items.map((_, index) => iterationResults(state, plan, node.id, frame.scope, index))
  const failedItems = countFailedIterations(state, plan, node.id, frame.scope, loop.items.length)
  const status: NodeStatus = failedItems > 0 ? 'partial' : 'success'
  const previous = state.nodes[key]
  const instance: NodeInstance = { ...previous, status, result: { results }, finishedAt: now }
  const { [key]: _, ...loops } = state.loops
  let s: RunState = {
    ...state,
    nodes: { ...state.nodes, [key]: instance },
    loops,
    partial: state.partial || failedItems > 0,
  }
  const events: Emitted[] = [
    {
      type: status === 'partial' ? 'node.partial' : 'node.succeeded',
      nodeId: node.id,
      data: {
        key,
        attempt: previous.attempts,
        result: { results },
        iterations: loop.items.length,
        failedIterations: failedItems,
      },
    },
  ]
  const pushed = pushChildren(s, plan, branchesOf, node.id, frame.scope, undefined, now)
  s = pushed.state
  return { state: s, events: [...events, ...pushed.events] }
}

function iterationResults(state: RunState, plan: Plan, loopId: string, scope: readonly LoopScope[], index: number) {
  const out: Record<string, unknown> = {}
  const inner = [...scope.map((s) => ({ index: s.index })), { index }]
  for (const root of plan.node(loopId).loopBody) {
    for (const id of plan.subtree(root)) {
      const instance = state.nodes[instanceKey(id, inner)]
      if (instance && instance.status !== 'skipped')
        out[id] = instance.status === 'failure' ? { error: instance.error } : instance.result
    }
  }
  return out
}

function countFailedIterations(
  state: RunState,
  plan: Plan,
  loopId: string,
  scope: readonly LoopScope[],
  count: number,
) {
  let failed = 0
  for (let index = 0; index < count; index++) {
    const inner = [...scope.map((s) => ({ index: s.index })), { index }]
    const bodyNodes = plan.node(loopId).loopBody.flatMap((root) => plan.subtree(root))
    if (bodyNodes.some((id) => ['failure', 'partial'].includes(state.nodes[instanceKey(id, inner)]?.status ?? '')))
      failed++
  }
  return failed
}

// --- children and skipping ----------------------------------------------------------------------

function pushChildren(
  state: RunState,
  plan: Plan,
  branchesOf: BranchesOf,
  nodeId: string,
  scope: readonly LoopScope[],
  branch: string | undefined,
  now: number,
): Step {
  const node = plan.node(nodeId)
  const branching = branchesOf(node.type) !== undefined
  const run: string[] = []
  const skipped: string[] = []
  for (const child of node.children) {
    const childBranch = plan.node(child).def.branch
    if (!branching || childBranch === undefined || childBranch === branch) run.push(child)
    else skipped.push(child)
  }
  let s: RunState = {
    ...state,
    stack: [...state.stack, ...[...run].reverse().map((id): Frame => ({ kind: 'node', nodeId: id, scope }))],
  }
  const events: Emitted[] = []
  for (const child of skipped) {
    const step = skipSubtree(s, plan, child, scope, now, `branch "${plan.node(child).def.branch}" was not taken`)
    s = step.state
    events.push(...step.events)
  }
  return { state: s, events }
}

function skipSubtree(
  state: RunState,
  plan: Plan,
  nodeId: string,
  scope: readonly LoopScope[],
  now: number,
  reason: string,
): Step {
  const nodes = { ...state.nodes }
  const events: Emitted[] = []
  for (const id of plan.subtree(nodeId)) {
    if (plan.node(id).loops.length > scope.length) continue // inside a loop body that never ran
    const key = instanceKey(id, scope)
    if (nodes[key]) continue
    nodes[key] = {
      nodeId: id,
      key,
      type: plan.node(id).type,
      status: 'skipped',
      attempts: 0,
      finishedAt: now,
      scope: scopeRefs(scope),
    }
    events.push({ type: 'node.skipped', nodeId: id, data: { key, reason } })
  }
  return { state: { ...state, nodes }, events }
}

// --- outcomes ---------------------------------------------------------------------------------

/** Applies what the executing (or resuming) node produced. */
export function applyOutcome(state: RunState, plan: Plan, branchesOf: BranchesOf, outcome: Outcome, now: number): Step {
  const current = state.current
  if (!current) return { state, events: [] }
  const { key, frame } = current
  const node = plan.node(frame.nodeId)
  const previous = state.nodes[key]
  const input = outcome.input ?? previous.input
  switch (outcome.kind) {
    case 'success': {
      const instance: NodeInstance = {
        ...previous,
        status: 'success',
        input,
        result: outcome.result,
        branch: outcome.branch,
        error: null,
        wait: undefined,
        finishedAt: now,
      }
      const vars = outcome.vars ? { ...state.vars, ...outcome.vars } : state.vars
      const s: RunState = { ...state, nodes: { ...state.nodes, [key]: instance }, current: null, vars }
      const pushed = pushChildren(s, plan, branchesOf, node.id, frame.scope, outcome.branch, now)
      const data: Record<string, unknown> = {
        key,
        attempt: previous.attempts,
        input,
        result: outcome.result,
        branch: outcome.branch,
      }
      if (outcome.vars) data.vars = outcome.vars
      if (outcome.logs?.length) data.logs = outcome.logs
      return { state: pushed.state, events: [{ type: 'node.succeeded', nodeId: node.id, data }, ...pushed.events] }
    }
    case 'loop': {
      if (outcome.items.length > LIMITS.iterationsPerLoop) {
        return applyOutcome(
          state,
          plan,
          branchesOf,
          {
            kind: 'failure',
            error: `for-each got ${outcome.items.length} items; at most ${LIMITS.iterationsPerLoop} are allowed`,
            input,
          },
          now,
        )
      }
      if (frame.scope.length >= LIMITS.loopNesting) {
        return applyOutcome(
          state,
          plan,
          branchesOf,
          { kind: 'failure', error: `loops may nest at most ${LIMITS.loopNesting} deep`, input },
          now,
        )
      }
      const instance: NodeInstance = { ...previous, status: 'running', input }
      return {
        state: {
          ...state,
          nodes: { ...state.nodes, [key]: instance },
          current: null,
          loops: { ...state.loops, [key]: { items: outcome.items, next: 0, failed: false } },
          stack: [...state.stack, { kind: 'loop', nodeId: node.id, scope: frame.scope }],
        },
        events: [{ type: 'node.looping', nodeId: node.id, data: { key, input, items: outcome.items.length } }],
      }
    }
    case 'wait': {
      const kind =
        outcome.wait.triggerType || (outcome.wait.timeoutMs !== undefined && outcome.wait.until === undefined)
          ? 'waiting'
          : 'scheduled'
      const wait: WaitInfo = { ...outcome.wait, startedAt: now, kind }
      const instance: NodeInstance = { ...previous, status: kind, input, wait }
      return {
        state: { ...state, nodes: { ...state.nodes, [key]: instance } },
        events: [{ type: 'node.waiting', nodeId: node.id, data: { key, input, wait } }],
      }
    }
    case 'failure':
      return applyFailure(state, plan, branchesOf, outcome, input, now)
  }
}

function applyFailure(
  state: RunState,
  plan: Plan,
  branchesOf: BranchesOf,
  outcome: Outcome & { kind: 'failure' },
  input: unknown,
  now: number,
): Step {
  const { key, frame } = state.current!
  const node = plan.node(frame.nodeId)
  const previous = state.nodes[key]
  const retry = node.def.retry
  if (retry && outcome.retryable !== false && previous.attempts < retry.maxAttempts) {
    const delay = Math.min((retry.backoffMs ?? 1000) * 2 ** (previous.attempts - 1), 3_600_000)
    const instance: NodeInstance = { ...previous, status: 'running', input, error: outcome.error }
    return {
      state: {
        ...state,
        nodes: { ...state.nodes, [key]: instance },
        current: null,
        stack: [...state.stack, { ...frame, retryDelayMs: delay }],
      },
      events: [
        {
          type: 'node.retrying',
          nodeId: node.id,
          data: {
            key,
            attempt: previous.attempts,
            error: outcome.error,
            nextAttempt: previous.attempts + 1,
            delayMs: delay,
          },
        },
      ],
    }
  }
  const instance: NodeInstance = {
    ...previous,
    status: 'failure',
    input,
    error: outcome.error,
    wait: undefined,
    finishedAt: now,
  }
  const failedData: Record<string, unknown> = {
    key,
    attempt: previous.attempts,
    input,
    error: outcome.error,
    code: outcome.code,
  }
  if (outcome.logs?.length) failedData.logs = outcome.logs
  const events: Emitted[] = [{ type: 'node.failed', nodeId: node.id, data: failedData }]
  const s: RunState = { ...state, nodes: { ...state.nodes, [key]: instance }, current: null }
  if (node.def.onError === 'continue') {
    const pushed = pushChildren({ ...s, partial: true }, plan, branchesOf, node.id, frame.scope, undefined, now)
    return { state: pushed.state, events: [...events, ...pushed.events] }
  }
  // Every failure has a code: the action's own, else node_failed (docs/runs.md).
  return {
    state: {
      ...s,
      failed: true,
      error: { message: outcome.error, nodeId: node.id, code: outcome.code ?? 'node_failed' },
    },
    events,
  }
}

/** Stops everything: the current node is cancelled, nothing else runs. */
export function applyCancel(state: RunState, now: number): Step {
  const events: Emitted[] = []
  let nodes = state.nodes
  if (state.current) {
    const { key } = state.current
    const previous = nodes[key]
    nodes = { ...nodes, [key]: { ...previous, status: 'cancelled', finishedAt: now, wait: undefined } }
    events.push({ type: 'node.cancelled', nodeId: previous.nodeId, data: { key } })
  }
  return { state: { ...state, nodes, current: null, stack: [] }, events }
}

export type FinalStatus = 'success' | 'partial' | 'failure'

export function finalStatus(state: RunState): FinalStatus {
  if (state.failed) return 'failure'
  return state.partial ? 'partial' : 'success'
}

/** Whether the current node waits (so the run may be put away). */
export function isWaiting(state: RunState): boolean {
  const current = state.current
  if (!current) return false
  const status = state.nodes[current.key]?.status
  return status === 'waiting' || status === 'scheduled'
}
