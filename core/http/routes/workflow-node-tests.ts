/** Running one node of a draft again with the inputs of an earlier run (the editor's node test). */
import { Elysia } from 'elysia'
import type { WorkflowService } from '../../services/workflows.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { t } from '../schemas.ts'

const NodeParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 64 }),
  nodeId: t.String({ minLength: 1, maxLength: 100 }),
})

const NodeTestResult = t.Object({
  status: t.Union([t.Literal('success'), t.Literal('failure'), t.Literal('waiting')]),
  result: t.Optional(t.Any()),
  branch: t.Optional(t.String()),
  error: t.Optional(t.String()),
  code: t.Optional(t.String()),
  input: t.Optional(t.Any({ description: 'the resolved payload the node was given' })),
  durationMs: t.Integer(),
})

export function workflowNodeTestRoutes(auth: AuthPlugin, workflows: WorkflowService) {
  return new Elysia({ name: 'routes.workflows.node-tests', prefix: '/v1/workflows' })
    .use(auth)
    .post(
      '/:id/nodes/:nodeId/test',
      ({ principal, params, body }) => workflows.testNode(principal, params.id, params.nodeId, body.runId),
      {
        permission: 'workflow:execute',
        params: NodeParams,
        body: t.Object({ runId: t.String({ minLength: 1, maxLength: 64 }) }),
        detail: doc({
          summary: 'Run one node of the draft again with the inputs it had in an earlier run',
          description:
            "The node runs as the draft writes it now, over the earlier run's trigger event, variables and upstream results; that run is not changed and no run is made. Answers the node's outcome. A node inside a for-each body runs in the loop's first iteration (its first item as $item, index 0); a run in which that loop had no items is a 409.",
          tags: ['workflows'],
          permission: 'workflow:execute',
          response: NodeTestResult,
          errors: [404, 409],
        }),
      },
    )
}
