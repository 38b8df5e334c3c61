/**
 * Resumes a waiting node: the action's `resume` with the event's data (or the timer's), or its
 * `timeout` once the wait timed out; the outcome is bounded and masked as an execution's is.
 */
import { errorMessage } from '../../core/errors.ts'
import type { ResumeContext } from '../../core/plugin/sdk.ts'
import { makeDirective } from './action-context.ts'
import { type NodeKit, outlastingOutages } from './node-kit.ts'
import { bounded, toOutcome, unavailableAction } from './node-outcome.ts'
import type { Plan } from './plan.ts'
import type { Outcome, ResumeTask } from './types.ts'

export async function resume(kit: NodeKit, plan: Plan, task: ResumeTask, signal: AbortSignal): Promise<Outcome> {
  const { masks, clock } = kit.deps
  const outcome = bounded(await resumeUnmasked(kit, plan, task, signal))
  return masks
    ? (
        await outlastingOutages(
          clock,
          () => masks.of(task.state.organizationId),
          () => signal,
        )
      )(outcome)
    : outcome
}

async function resumeUnmasked(kit: NodeKit, plan: Plan, task: ResumeTask, signal: AbortSignal): Promise<Outcome> {
  const { registry, clock } = kit.deps
  const { state, event } = task
  const instance = state.nodes[event.key]
  const node = plan.node(instance.nodeId)
  const action = registry.action(node.type, node.def.typeVersion)
  if (!action) return unavailableAction(node.type)
  const payload = (instance.input ?? {}) as Record<string, unknown>
  const wait = instance.wait ?? { startedAt: clock.now(), kind: 'waiting' as const }
  const ctx: ResumeContext<Record<string, unknown>> = {
    payload,
    run: {
      id: state.runId,
      workflowId: state.workflowId,
      workflowVersion: state.workflowVersion,
      organizationId: state.organizationId,
    },
    node: { id: node.id, key: event.key },
    wait,
    now: () => clock.now(),
    branch: (branch, result) => makeDirective('branch', branch, result),
  }
  try {
    if (signal.aborted) throw signal.reason
    let output: unknown
    if (event.type === 'TIMER' && event.kind === 'timeout') {
      if (!action.timeout)
        return {
          kind: 'failure',
          error: `timed out after ${wait.timeoutMs} ms of waiting`,
          code: 'timeout',
          retryable: false,
        }
      output = await action.timeout(ctx)
    } else {
      const data = event.type === 'RESUME' ? event.data : { firedAt: new Date(clock.now()).toISOString() }
      output = action.resume ? await action.resume(ctx, data) : data
    }
    return toOutcome(output, payload, clock.now())
  } catch (error) {
    return { kind: 'failure', error: errorMessage(error), retryable: false }
  }
}
