import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { MAX_INT32, Page, pageRequest } from '../../domain/common.ts'
import { Run, RunBody } from '../../domain/run.ts'
import {
  CreateWorkflowBody,
  OwnerBody,
  RefillBody,
  RollbackBody,
  UiMetadataBody,
  UpdateWorkflowBody,
  ValidateBody,
  ValidationReport,
  VisibilityBody,
  Workflow,
  WORKFLOW_STATUSES,
} from '../../domain/workflow.ts'
import type { RunService } from '../../services/runs.ts'
import type { WorkflowService } from '../../services/workflows.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams, intParam, PageQuery, t } from '../schemas.ts'

const tags = ['workflows']
const VersionParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 64 }),
  versionNumber: intParam('versionNumber', { minimum: 1, maximum: MAX_INT32 }, 'params'),
})
const ListQuery = t.Composite([
  PageQuery,
  t.Object({
    status: t.Optional(t.Union(WORKFLOW_STATUSES.map((s) => t.Literal(s)))),
    search: t.Optional(t.String({ maxLength: 200 })),
  }),
])

export function workflowRoutes(auth: AuthPlugin, workflows: WorkflowService, runs: RunService) {
  return new Elysia({ name: 'routes.workflows', prefix: '/v1/workflows' })
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
    .get('/:id', ({ principal, params }) => workflows.get(principal, params.id), {
      permission: 'workflow:read',
      params: IdParams,
      detail: doc({
        summary: 'Read a workflow: the draft if there is one, else the live version',
        tags,
        permission: 'workflow:read',
        response: Workflow,
        errors: [404],
      }),
    })
    .put('/:id', ({ principal, params, body }) => workflows.update(principal, params.id, body), {
      permission: 'workflow:update',
      params: IdParams,
      body: UpdateWorkflowBody,
      detail: doc({
        summary: 'Change a workflow',
        description:
          'Fields left out keep their value. A change to a live workflow creates or updates its draft; identical content changes nothing.',
        tags,
        permission: 'workflow:update',
        response: Workflow,
        errors: [404, 409],
      }),
    })
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
    .get('/:id/draft', ({ principal, params }) => workflows.getDraft(principal, params.id), {
      permission: 'workflow:read',
      params: IdParams,
      detail: doc({
        summary: 'Read the draft version',
        tags,
        permission: 'workflow:read',
        response: Workflow,
        errors: [404],
      }),
    })
    .delete('/:id/draft', ({ principal, params }) => workflows.discardDraft(principal, params.id), {
      permission: 'workflow:update',
      params: IdParams,
      detail: doc({
        summary: 'Discard the draft of a live workflow',
        tags,
        permission: 'workflow:update',
        response: Workflow,
        errors: [404, 409],
      }),
    })
    .get('/:id/live', ({ principal, params }) => workflows.getLive(principal, params.id), {
      permission: 'workflow:read',
      params: IdParams,
      detail: doc({
        summary: 'Read the live version',
        tags,
        permission: 'workflow:read',
        response: Workflow,
        errors: [404],
      }),
    })
    .post('/:id/publish', ({ principal, params }) => workflows.publish(principal, params.id), {
      permission: 'workflow:publish',
      params: IdParams,
      detail: doc({
        summary: 'Publish the draft: it becomes the live version, active',
        tags,
        permission: 'workflow:publish',
        response: Workflow,
        errors: [404, 409],
      }),
    })
    .post('/:id/pause', ({ principal, params }) => workflows.pause(principal, params.id), {
      permission: 'workflow:update',
      params: IdParams,
      detail: doc({
        summary: 'Pause the live version: automatic triggers are skipped',
        tags,
        permission: 'workflow:update',
        response: Workflow,
        errors: [404, 409],
      }),
    })
    .post('/:id/resume', ({ principal, params }) => workflows.resume(principal, params.id), {
      permission: 'workflow:update',
      params: IdParams,
      detail: doc({
        summary: 'Resume a paused live version',
        tags,
        permission: 'workflow:update',
        response: Workflow,
        errors: [404, 409],
      }),
    })
    .post('/:id/refill', ({ principal, params, body }) => workflows.refill(principal, params.id, body.remainRuns), {
      permission: 'workflow:update',
      params: IdParams,
      body: RefillBody,
      detail: doc({
        summary: 'Set the remaining automatic runs; resumes a workflow paused for max_runs_exhausted',
        tags,
        permission: 'workflow:update',
        response: Workflow,
        errors: [404, 409],
      }),
    })
    .post('/:id/rollback', ({ principal, params, body }) => workflows.rollback(principal, params.id, body.version), {
      permission: 'workflow:update',
      params: IdParams,
      body: RollbackBody,
      detail: doc({
        summary: 'Copy an earlier version into a new draft',
        tags,
        permission: 'workflow:update',
        response: Workflow,
        errors: [404, 409],
      }),
    })
    .get(
      '/:id/versions',
      ({ principal, params, query }) => workflows.listVersions(principal, params.id, pageRequest(query)),
      {
        permission: 'workflow:read',
        params: IdParams,
        query: PageQuery,
        detail: doc({
          summary: 'List versions, newest first',
          tags,
          permission: 'workflow:read',
          response: Page(Workflow),
          errors: [404],
        }),
      },
    )
    .get(
      '/:id/versions/:versionNumber',
      ({ principal, params }) => workflows.getVersion(principal, params.id, params.versionNumber),
      {
        permission: 'workflow:read',
        params: VersionParams,
        detail: doc({
          summary: 'Read one version',
          tags,
          permission: 'workflow:read',
          response: Workflow,
          errors: [404],
        }),
      },
    )
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
    .patch('/:id/ui-metadata', ({ principal, params, body }) => workflows.patchUiMetadata(principal, params.id, body), {
      permission: 'workflow:update',
      params: IdParams,
      body: UiMetadataBody,
      detail: doc({
        summary: 'Change comments, node positions or sticky notes without a new version',
        tags,
        permission: 'workflow:update',
        response: Workflow,
        errors: [404],
      }),
    })
    .post(
      '/:id/run',
      ({ principal, params, body, request }) => runs.start(principal, params.id, body ?? {}, request.headers),
      {
        permission: 'workflow:execute',
        params: IdParams,
        body: t.Optional(RunBody),
        detail: doc({
          summary: 'Run a workflow now; answers the run id at once',
          description:
            'Runs the display version (draft, or live), also when paused; no cooldown or remaining-runs accounting. Reusing your own runId returns the existing run.',
          tags: ['runs'],
          permission: 'workflow:execute',
          response: T.Object({ runId: T.String() }),
          errors: [404, 409],
        }),
      },
    )
    .get(
      '/:id/runs',
      ({ principal, params, query }) =>
        runs.list(principal, pageRequest(query), { workflowId: params.id, status: query.status }),
      {
        permission: 'run:read',
        params: IdParams,
        query: t.Composite([PageQuery, t.Object({ status: t.Optional(t.String({ maxLength: 20 })) })]),
        detail: doc({
          summary: "List a workflow's runs, newest first",
          tags: ['runs'],
          permission: 'run:read',
          response: Page(Run),
          errors: [404],
        }),
      },
    )
}
