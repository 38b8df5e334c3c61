/**
 * The run state and its pure transitions. The run machine keeps a RunState as its context and
 * calls these functions; each returns a new state and the events the step produced (which the
 * machine emits for the journal). Nothing here performs I/O or reads the clock.
 *
 * Execution is depth-first and sequential: a node's children run after it completes, in the
 * order listed, each child's subtree before the next child; a for-each runs its loop body once
 * per item, in order, then its own children.
 *
 * This file starts a run, moves it on to its next node and ends it; the rest lives beside it by
 * concern: the state's shape (state-shape.ts), children and skipped branches
 * (state-branches.ts), loops (state-loops.ts), a node's outcome (state-outcomes.ts) and its
 * failures and retries (state-failures.ts).
 */
import type { Plan } from './plan.ts'
import { pushChildren } from './state-branches.ts'
import { nextIteration } from './state-loops.ts'
import {
  type BranchesOf,
  type Emitted,
  type Frame,
  instanceKey,
  LIMITS,
  type NodeInstance,
  type RunInput,
  type RunState,
  type Step,
  scopeRefs,
} from './state-shape.ts'

export { applyOutcome } from './state-outcomes.ts'
export { instanceKey, LIMITS } from './state-shape.ts'
export type {
  BranchesOf,
  Emitted,
  Frame,
  LoopScope,
  NodeInstance,
  RunInput,
  RunState,
  Step,
  WaitInfo,
} from './state-shape.ts'

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
    if (s.seed[key] && !frame.retryDelayMs) {
      s = reuseSeeded(s, plan, branchesOf, frame, key, now, events)
      continue
    }
    return { state: startNode(s, plan, frame, key, now, events), events }
  }
  return { state: { ...s, current: null }, events }
}

/** A node whose result an earlier run left (a retry) succeeds with it at once; its events go to `events`. */
function reuseSeeded(
  state: RunState,
  plan: Plan,
  branchesOf: BranchesOf,
  frame: Frame & { kind: 'node' },
  key: string,
  now: number,
  events: Emitted[],
): RunState {
  const node = plan.node(frame.nodeId)
  const reused = state.seed[key]
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
  events.push({
    type: 'node.succeeded',
    nodeId: node.id,
    data: { key, attempt: 0, result: reused.result, branch: reused.branch, reused: true },
  })
  const s: RunState = { ...state, nodes: { ...state.nodes, [key]: instance } }
  const pushed = pushChildren(s, plan, branchesOf, node.id, frame.scope, reused.branch, now)
  events.push(...pushed.events)
  return pushed.state
}

/** The node becomes `current` for its next attempt (or the run fails past its executions' limit). */
function startNode(
  state: RunState,
  plan: Plan,
  frame: Frame & { kind: 'node' },
  key: string,
  now: number,
  events: Emitted[],
): RunState {
  const node = plan.node(frame.nodeId)
  if (state.executions >= LIMITS.executionsPerRun) {
    const error = `the run reached the limit of ${LIMITS.executionsPerRun} node executions`
    return { ...state, failed: true, error: { message: error, nodeId: node.id, code: 'limit' } }
  }
  const previous = state.nodes[key]
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
  events.push({ type: 'node.started', nodeId: node.id, data: { key, attempt: attempts, type: node.type } })
  return {
    ...state,
    nodes: { ...state.nodes, [key]: instance },
    current: { key, frame },
    executions: state.executions + 1,
  }
}

// --- ending -------------------------------------------------------------------------------------

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
