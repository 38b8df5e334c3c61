/** A workflow's owner, visibility and UI metadata: changes that make no new version of its content. */
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { OwnerBody, UiMetadataBody, VisibilityBody, Workflow } from '../../domain/workflow.ts'
import type { WorkflowService } from '../../services/workflows.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams } from '../schemas.ts'
import { tagged } from './workflows.ts'

const tags = ['workflows']

export function workflowSettingsRoutes(auth: AuthPlugin, workflows: WorkflowService) {
  return new Elysia({ name: 'routes.workflows.settings', prefix: '/v1/workflows' })
    .use(auth)
    .put('/:id/owner', ({ principal, params, body }) => workflows.setOwner(principal, params.id, body.ownerUserId), {
      permission: 'workflow:update',
      params: IdParams,
      body: OwnerBody,
      detail: doc({
        summary: 'Transfer ownership to another member',
        tags,
        permission: 'workflow:update',
        response: T.Object({ id: T.String(), ownerUserId: T.String() }),
        errors: [404],
      }),
    })
    .put(
      '/:id/visibility',
      ({ principal, params, body }) => workflows.setVisibility(principal, params.id, body.visibility),
      {
        permission: 'workflow:update',
        params: IdParams,
        body: VisibilityBody,
        detail: doc({
          summary: 'Set who may see or run the workflow',
          tags,
          permission: 'workflow:update',
          response: Workflow,
          errors: [404],
        }),
      },
    )
    .patch(
      '/:id/ui-metadata',
      async ({ principal, params, body, headers, set }) =>
        tagged(set, await workflows.patchUiMetadata(principal, params.id, body, { ifMatch: headers['if-match'] })),
      {
        permission: 'workflow:update',
        params: IdParams,
        body: UiMetadataBody,
        detail: doc({
          summary: 'Change comments, node positions or sticky notes without a new version',
          description: 'With If-Match, a workflow changed since the read is refused with 412; answers the new ETag.',
          tags,
          permission: 'workflow:update',
          response: Workflow,
          errors: [404, 412],
        }),
      },
    )
}
