/**
 * `POST /v1/workflows/{id}/nodes/{nodeId}/test { runId }`: one node of the draft run again with
 * the inputs it had in an earlier run of the workflow (its trigger event, variables and upstream
 * results), answering the node's outcome. The earlier run is only read; no run is made.
 */
import type { Definition, WorkflowContent } from '../domain/workflow.ts'
import { badRequest, conflict, notFound, unavailable } from '../errors.ts'
import type { NodeTestOutcome } from '../ports/node-tester.ts'
import { runs } from '../store/runs.ts'
import { displayVersion } from '../store/workflows.ts'
import type { Principal } from './auth.ts'
import type { WorkflowContext } from './workflow-context.ts'
import { triggerNodeIdsOf } from './workflow-presentation.ts'

/** The node test of the workflow service. */
export function nodeTestOperations(ctx: WorkflowContext) {
  const { deps } = ctx
  return {
    async testNode(caller: Principal, id: string, nodeId: string, runId: string): Promise<NodeTestOutcome> {
      const w = await ctx.loadRow(deps.store, caller, id)
      const version = await ctx.loadVersion(deps.store, w, displayVersion(w))
      const definition = (JSON.parse(version.content) as WorkflowContent).definition as Definition
      if (!Object.hasOwn(definition.nodes, nodeId)) throw notFound(`node ${nodeId} of workflow`)
      if (triggerNodeIdsOf(definition).includes(nodeId))
        throw badRequest('a trigger node is not run again; test the node after it', [
          { path: '/nodeId', message: `${nodeId} is a trigger` },
        ])
      const run = await runs.byId(deps.store, caller.organizationId, runId)
      if (!run || run.workflow_id !== w.id) throw notFound('run of this workflow')
      if (!run.snapshot) throw conflict('the run has not stored any state yet; try again once it has started')
      if (!deps.nodeTester) throw unavailable('this process does not run nodes')
      return deps.nodeTester.test({
        organizationId: caller.organizationId,
        workflowId: w.id,
        workflowVersion: version.version,
        definition,
        nodeId,
        run: { snapshot: run.snapshot, triggerEvent: run.trigger_event },
      })
    },
  }
}
