/**
 * Workflows: one plugin per use case, composed in the order the API document lists them. Here:
 * create, list, validate, read, change, archive. Drafts, publishing and versions are in
 * workflow-versions.ts; owner, visibility and UI metadata in workflow-settings.ts; starting and
 * listing runs in workflow-runs.ts.
 */
import { Elysia } from 'elysia'
import { Page, pageRequest } from '../../domain/common.ts'
import {
  CreateWorkflowBody,
  UpdateWorkflowBody,
  ValidateBody,
  ValidationReport,
  Workflow,
  WORKFLOW_STATUSES,
} from '../../domain/workflow.ts'
import type { RunService } from '../../services/runs.ts'
import type { WorkflowService } from '../../services/workflows.ts'
import { workflowEtag } from '../../services/workflow-etag.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams, PageQuery, t } from '../schemas.ts'
import { workflowNodeTestRoutes } from './workflow-node-tests.ts'
import { workflowRunRoutes } from './workflow-runs.ts'
import type { RunOutputs } from '../../services/run-outputs.ts'
import { workflowSettingsRoutes } from './workflow-settings.ts'
import { workflowPublishingRoutes, workflowVersionRoutes } from './workflow-versions.ts'

const tags = ['workflows']
const ListQuery = t.Composite([
  PageQuery,
  t.Object({
    status: t.Optional(t.Union(WORKFLOW_STATUSES.map((s) => t.Literal(s)))),
    search: t.Optional(t.String({ maxLength: 200 })),
  }),
])

export function workflowRoutes(auth: AuthPlugin, workflows: WorkflowService, runs: RunService, outputs?: RunOutputs) {
  return new Elysia({ name: 'routes.workflows' })
    .use(workflowCrudRoutes(auth, workflows))
    .use(workflowPublishingRoutes(auth, workflows))
    .use(workflowVersionRoutes(auth, workflows))
    .use(workflowSettingsRoutes(auth, workflows))
    .use(workflowRunRoutes(auth, runs, outputs))
    .use(workflowNodeTestRoutes(auth, workflows))
}

/** Sets the ETag of the workflow answered (its version and content as shown). */
export async function tagged(set: { headers: Record<string, unknown> }, workflow: Workflow): Promise<Workflow> {
  set.headers.etag = await workflowEtag(workflow)
  return workflow
}

/** Create, list, validate, read, change, archive and unarchive. */
function workflowCrudRoutes(auth: AuthPlugin, workflows: WorkflowService) {
  return new Elysia({ name: 'routes.workflows.crud', prefix: '/v1/workflows' })
    .use(auth)
    .post('/', ({ principal, body }) => workflows.create(principal, body), {
      permission: 'workflow:create',
      body: CreateWorkflowBody,
      detail: doc({
        summary: 'Create a workflow (a draft, version 1)',
        description: 'Every problem of the definition is listed in details.',
        tags,
        permission: 'workflow:create',
        response: Workflow,
      }),
    })
    .get(
      '/',
      ({ principal, query }) =>
        workflows.list(principal, pageRequest(query), { status: query.status, search: query.search }),
      {
        permission: 'workflow:read',
        query: ListQuery,
        detail: doc({
          summary: 'List workflows (their display rows), newest first',
          tags,
          permission: 'workflow:read',
          response: Page(Workflow),
        }),
      },
    )
    .post('/validate', ({ body }) => workflows.validate(body.definition), {
      permission: 'workflow:read',
      body: ValidateBody,
      detail: doc({
        summary: 'Check a definition without saving it',
        tags,
        permission: 'workflow:read',
        response: ValidationReport,
      }),
    })
    .get('/:id', async ({ principal, params, set }) => tagged(set, await workflows.get(principal, params.id)), {
      permission: 'workflow:read',
      params: IdParams,
      detail: doc({
        summary: 'Read a workflow: the draft if there is one, else the live version',
        description:
          'Answers an ETag naming the version shown; send it back as If-Match on PUT to refuse a write over a change made since (412).',
        tags,
        permission: 'workflow:read',
        response: Workflow,
        errors: [404],
      }),
    })
    .put(
      '/:id',
      async ({ principal, params, body, headers, set }) =>
        tagged(set, await workflows.update(principal, params.id, body, { ifMatch: headers['if-match'] })),
      {
        permission: 'workflow:update',
        params: IdParams,
        body: UpdateWorkflowBody,
        detail: doc({
          summary: 'Change a workflow',
          description:
            'Fields left out keep their value. A change to a live workflow creates or updates its draft; identical content changes nothing. With If-Match (the ETag of a read), a workflow changed since is refused with 412 naming the current version; without it the write is unconditional. Answers the new ETag.',
          tags,
          permission: 'workflow:update',
          response: Workflow,
          errors: [404, 409, 412],
        }),
      },
    )
    .delete('/:id', ({ principal, params }) => workflows.archive(principal, params.id), {
      permission: 'workflow:delete',
      params: IdParams,
      detail: doc({
        summary: 'Archive a workflow: automatic triggers stop; history stays',
        tags,
        permission: 'workflow:delete',
        response: Workflow,
        errors: [404],
      }),
    })
    .post('/:id/unarchive', ({ principal, params }) => workflows.unarchive(principal, params.id), {
      permission: 'workflow:delete',
      params: IdParams,
      detail: doc({
        summary: 'Bring an archived workflow back',
        tags,
        permission: 'workflow:delete',
        response: Workflow,
        errors: [404],
      }),
    })
}
