/**
 * What the executing (or resuming) node produced, applied to the run: a success (its result,
 * branch and variables, then its children), a loop's items, a wait, or a failure.
 */
import type { Plan } from './plan.ts'
import { pushChildren } from './state-branches.ts'
import { applyFailure } from './state-failures.ts'
import { startLoop } from './state-loops.ts'
import type { BranchesOf, NodeInstance, RunState, Step, WaitInfo } from './state-shape.ts'
import type { Outcome } from './types.ts'

/** Applies what the executing (or resuming) node produced. */
export function applyOutcome(state: RunState, plan: Plan, branchesOf: BranchesOf, outcome: Outcome, now: number): Step {
  const current = state.current
  if (!current) return { state, events: [] }
  const input = outcome.input ?? state.nodes[current.key].input
  switch (outcome.kind) {
    case 'success':
      return applySuccess(state, plan, branchesOf, outcome, input, now)
    case 'loop':
      return startLoop(state, plan, branchesOf, outcome, input, now)
    case 'wait':
      return applyWait(state, outcome, input, now)
    case 'failure':
      return applyFailure(state, plan, branchesOf, outcome, input, now)
  }
}

function applySuccess(
  state: RunState,
  plan: Plan,
  branchesOf: BranchesOf,
  outcome: Outcome & { kind: 'success' },
  input: unknown,
  now: number,
): Step {
  const { key, frame } = state.current!
  const previous = state.nodes[key]
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
  const pushed = pushChildren(s, plan, branchesOf, frame.nodeId, frame.scope, outcome.branch, now)
  const data: Record<string, unknown> = {
    key,
    attempt: previous.attempts,
    input,
    result: outcome.result,
    branch: outcome.branch,
  }
  if (outcome.vars) data.vars = outcome.vars
  if (outcome.logs?.length) data.logs = outcome.logs
  return { state: pushed.state, events: [{ type: 'node.succeeded', nodeId: frame.nodeId, data }, ...pushed.events] }
}

/** The node waits: for an event or a timeout (`waiting`), or for a time (`scheduled`). It stays current. */
function applyWait(state: RunState, outcome: Outcome & { kind: 'wait' }, input: unknown, now: number): Step {
  const { key, frame } = state.current!
  const kind =
    outcome.wait.triggerType || (outcome.wait.timeoutMs !== undefined && outcome.wait.until === undefined)
      ? 'waiting'
      : 'scheduled'
  const wait: WaitInfo = { ...outcome.wait, startedAt: now, kind }
  const instance: NodeInstance = { ...state.nodes[key], status: kind, input, wait }
  return {
    state: { ...state, nodes: { ...state.nodes, [key]: instance } },
    events: [{ type: 'node.waiting', nodeId: frame.nodeId, data: { key, input, wait } }],
  }
}
