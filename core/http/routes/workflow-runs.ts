/** Running a workflow now, and listing its runs. */
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { Page, pageRequest } from '../../domain/common.ts'
import { Run, RunBody } from '../../domain/run.ts'
import type { RunService } from '../../services/runs.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams, PageQuery, t } from '../schemas.ts'

export function workflowRunRoutes(auth: AuthPlugin, runs: RunService) {
  return new Elysia({ name: 'routes.workflows.runs', prefix: '/v1/workflows' })
    .use(auth)
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
