/**
 * The node tester (core/ports/node-tester.ts): one node of a draft executed by the engine's own
 * node runner (payload resolution, connector, capabilities, masking), over the state an earlier
 * run stored, under a run id of its own. Nothing reaches the earlier run: no journal, no waits.
 * A node inside a for-each body runs outside any iteration (`$item` is empty).
 */
import { conflict } from '../core/errors.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { Ids } from '../core/ports/ids.ts'
import type { NodeTester, NodeTestOutcome } from '../core/ports/node-tester.ts'
import { compilePlan } from './engine/plan.ts'
import { instanceKey, type RunState } from './engine/state.ts'
import { runStateOf } from './engine/stored-snapshot.ts'
import type { NodeRunner, Outcome } from './engine/types.ts'

export interface NodeTesterDeps {
  runner: NodeRunner
  clock: Clock
  ids: Ids
}

function outcomeOf(outcome: Outcome): Omit<NodeTestOutcome, 'durationMs'> {
  switch (outcome.kind) {
    case 'success':
      return {
        status: 'success',
        result: outcome.result,
        input: outcome.input,
        ...(outcome.branch ? { branch: outcome.branch } : {}),
      }
    case 'failure':
      return {
        status: 'failure',
        error: outcome.error,
        input: outcome.input,
        ...(outcome.code ? { code: outcome.code } : {}),
      }
    case 'wait':
      return { status: 'waiting', result: { wait: outcome.wait }, input: outcome.input }
    case 'loop':
      return { status: 'success', result: { items: outcome.items }, input: outcome.input }
  }
}

export function createNodeTester(deps: NodeTesterDeps): NodeTester {
  return {
    async test(request) {
      const stored = runStateOf(request.run.snapshot, request.run.triggerEvent)
      if (!stored) throw conflict('the run has no stored state to take the inputs from')
      const plan = compilePlan(request.definition, `test:${request.workflowId}`)
      const state: RunState = {
        ...stored,
        runId: deps.ids.next('run'),
        workflowVersion: request.workflowVersion,
        current: { key: instanceKey(request.nodeId, []), frame: { kind: 'node', nodeId: request.nodeId, scope: [] } },
      }
      const started = deps.clock.now()
      const executed = deps.runner.execute(plan, state)
      const outcome = 'pending' in executed ? await executed.pending : executed
      return { ...outcomeOf(outcome), durationMs: deps.clock.now() - started }
    },
  }
}
