/**
 * For-each loops: a loop node's items start its loop (within the limits), each iteration runs
 * the loop body with the item in scope, and the last one completes the loop node with every
 * iteration's body results (partial when an iteration failed), then runs its children.
 */
import type { NodeStatus } from '../../core/domain/run.ts'
import type { Plan } from './plan.ts'
import { pushChildren } from './state-branches.ts'
import { applyFailure } from './state-failures.ts'
import {
  type BranchesOf,
  type Emitted,
  type Frame,
  instanceKey,
  LIMITS,
  type LoopScope,
  type NodeInstance,
  type RunState,
  type Step,
} from './state-shape.ts'
import type { Outcome } from './types.ts'

/** The current node answered with items: its loop starts (or it fails, past the limits). */
export function startLoop(
  state: RunState,
  plan: Plan,
  branchesOf: BranchesOf,
  outcome: Outcome & { kind: 'loop' },
  input: unknown,
  now: number,
): Step {
  const { key, frame } = state.current!
  if (outcome.items.length > LIMITS.iterationsPerLoop) {
    const error = `for-each got ${outcome.items.length} items; at most ${LIMITS.iterationsPerLoop} are allowed`
    return applyFailure(state, plan, branchesOf, { kind: 'failure', error, input }, input, now)
  }
  if (frame.scope.length >= LIMITS.loopNesting) {
    const error = `loops may nest at most ${LIMITS.loopNesting} deep`
    return applyFailure(state, plan, branchesOf, { kind: 'failure', error, input }, input, now)
  }
  const instance: NodeInstance = { ...state.nodes[key], status: 'running', input }
  return {
    state: {
      ...state,
      nodes: { ...state.nodes, [key]: instance },
      current: null,
      loops: { ...state.loops, [key]: { items: outcome.items, next: 0, failed: false } },
      stack: [...state.stack, { kind: 'loop', nodeId: frame.nodeId, scope: frame.scope }],
    },
    events: [{ type: 'node.looping', nodeId: frame.nodeId, data: { key, input, items: outcome.items.length } }],
  }
}

/** A loop frame popped: its next iteration's body is stacked, or, every item done, the loop completes. */
export function nextIteration(state: RunState, plan: Plan, branchesOf: BranchesOf, frame: Frame, now: number): Step {
  const key = instanceKey(frame.nodeId, frame.scope)
  const loop = state.loops[key]
  const node = plan.node(frame.nodeId)
  if (loop.next >= loop.items.length) return completeLoop(state, plan, branchesOf, frame, now)
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

/** Every item done: the loop's result gathers each iteration's body results. */
function completeLoop(state: RunState, plan: Plan, branchesOf: BranchesOf, frame: Frame, now: number): Step {
  const key = instanceKey(frame.nodeId, frame.scope)
  const loop = state.loops[key]
  const node = plan.node(frame.nodeId)
  const results = loop.items.map((_, index) => iterationResults(state, plan, node.id, frame.scope, index))
  const failedItems = countFailedIterations(state, plan, node.id, frame.scope, loop.items.length)
  const status: NodeStatus = failedItems > 0 ? 'partial' : 'success'
  const previous = state.nodes[key]
  const instance: NodeInstance = { ...previous, status, result: { results }, finishedAt: now }
  const { [key]: _, ...loops } = state.loops
  const s: RunState = {
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
  return { state: pushed.state, events: [...events, ...pushed.events] }
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
