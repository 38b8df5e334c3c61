/**
 * The node tester (core/ports/node-tester.ts): one node of a draft executed by the engine's own
 * node runner (payload resolution, connector, capabilities, masking), over the state an earlier
 * run stored, under a run id of its own. Nothing reaches the earlier run: no journal, no waits.
 * A node inside a for-each body runs in that loop's first iteration: the for-each node is evaluated
 * again over the run's state (as each enclosing loop, outermost first) and the node gets its first
 * item as `$item` (index 0), and the results the body's earlier nodes had in that iteration. A loop
 * with no items in that run is a 409: there is no iteration to run the node in.
 */
import { conflict } from '../core/errors.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { Ids } from '../core/ports/ids.ts'
import type { NodeTester, NodeTestOutcome } from '../core/ports/node-tester.ts'
import { compilePlan } from './engine/plan.ts'
import type { Plan } from './engine/plan.ts'
import { instanceKey, type LoopScope, type RunState } from './engine/state.ts'
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

/** The scope of the first iteration of each for-each whose body holds `nodeId`, outermost first. */
async function firstIterations(runner: NodeRunner, plan: Plan, state: RunState, nodeId: string) {
  const scope: LoopScope[] = []
  for (const loopId of plan.node(nodeId).loops) {
    const at: RunState = {
      ...state,
      current: { key: instanceKey(loopId, scope), frame: { kind: 'node', nodeId: loopId, scope: [...scope] } },
    }
    const executed = runner.execute(plan, at)
    const outcome = 'pending' in executed ? await executed.pending : executed
    if (outcome.kind !== 'loop' || outcome.items.length === 0)
      throw conflict(
        `${nodeId} is in the body of the for-each ${loopId}, which has no items in that run: test it over a run whose ${loopId} had items`,
      )
    scope.push({ loopId, index: 0, item: outcome.items[0] })
  }
  return scope
}

export function createNodeTester(deps: NodeTesterDeps): NodeTester {
  return {
    async test(request) {
      const stored = runStateOf(request.run.snapshot, request.run.triggerEvent)
      if (!stored) throw conflict('the run has no stored state to take the inputs from')
      const plan = compilePlan(request.definition, `test:${request.workflowId}`)
      const base: RunState = { ...stored, runId: deps.ids.next('run'), workflowVersion: request.workflowVersion }
      const started = deps.clock.now()
      const scope = await firstIterations(deps.runner, plan, base, request.nodeId)
      const frame = { kind: 'node' as const, nodeId: request.nodeId, scope }
      const state: RunState = { ...base, current: { key: instanceKey(request.nodeId, scope), frame } }
      const executed = deps.runner.execute(plan, state)
      const outcome = 'pending' in executed ? await executed.pending : executed
      return { ...outcomeOf(outcome), durationMs: deps.clock.now() - started }
    },
  }
}
