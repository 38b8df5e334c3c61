/**
 * A node that failed: retried after a growing delay while its retry policy allows, else
 * failed, which fails the run unless the node continues on error (the run ends partial).
 */
import type { Plan } from './plan.ts'
import { pushChildren } from './state-branches.ts'
import type { BranchesOf, Emitted, NodeInstance, RunState, Step } from './state-shape.ts'
import type { Outcome } from './types.ts'

export type Failure = Outcome & { kind: 'failure' }

export function applyFailure(
  state: RunState,
  plan: Plan,
  branchesOf: BranchesOf,
  outcome: Failure,
  input: unknown,
  now: number,
): Step {
  const { key, frame } = state.current!
  const node = plan.node(frame.nodeId)
  const previous = state.nodes[key]
  const retry = node.def.retry
  if (retry && outcome.retryable !== false && previous.attempts < retry.maxAttempts) {
    const delay = Math.min((retry.backoffMs ?? 1000) * 2 ** (previous.attempts - 1), 3_600_000)
    return scheduleRetry(state, outcome, input, delay)
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

/** Puts the current node back on the stack, to run again once `delay` has passed. */
function scheduleRetry(state: RunState, outcome: Failure, input: unknown, delay: number): Step {
  const { key, frame } = state.current!
  const previous = state.nodes[key]
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
        nodeId: frame.nodeId,
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
