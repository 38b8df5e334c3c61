/**
 * What runs after a node: its children in order (those of the branch it took, when it
 * branches), and the subtrees of the branches not taken, marked skipped.
 */
import type { Plan } from './plan.ts'
import {
  type BranchesOf,
  type Emitted,
  type Frame,
  instanceKey,
  type LoopScope,
  type RunState,
  type Step,
  scopeRefs,
} from './state-shape.ts'

/** Stacks a node's children to run (the first on top) and skips the branches it did not take. */
export function pushChildren(
  state: RunState,
  plan: Plan,
  branchesOf: BranchesOf,
  nodeId: string,
  scope: readonly LoopScope[],
  branch: string | undefined,
  now: number,
): Step {
  const node = plan.node(nodeId)
  const branching = branchesOf(node.type, node.def.typeVersion) !== undefined
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
