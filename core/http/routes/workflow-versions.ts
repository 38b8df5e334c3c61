/** A workflow's draft and live versions: publishing, pausing, refills, rollback and the version history. */
import { Elysia } from 'elysia'
import { MAX_INT32, Page, pageRequest } from '../../domain/common.ts'
import { RefillBody, RollbackBody, Workflow } from '../../domain/workflow.ts'
import type { WorkflowService } from '../../services/workflows.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams, intParam, PageQuery, t } from '../schemas.ts'

const tags = ['workflows']
const VersionParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 64 }),
  versionNumber: intParam('versionNumber', { minimum: 1, maximum: MAX_INT32 }, 'params'),
})

/** The draft and the live version: read, discard, publish, pause, resume, refill. */
export function workflowPublishingRoutes(auth: AuthPlugin, workflows: WorkflowService) {
  return new Elysia({ name: 'routes.workflows.publishing', prefix: '/v1/workflows' })
    .use(auth)
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
}

/** Rolling back to an earlier version, and reading the versions. */
export function workflowVersionRoutes(auth: AuthPlugin, workflows: WorkflowService) {
  return new Elysia({ name: 'routes.workflows.versions', prefix: '/v1/workflows' })
    .use(auth)
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
}
