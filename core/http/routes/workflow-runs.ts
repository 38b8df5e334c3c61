/** Running a workflow now, and listing its runs. */
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { Page, pageRequest } from '../../domain/common.ts'
import { Run, RunBody, WaitedRun } from '../../domain/run.ts'
import type { RunOutputs } from '../../services/run-outputs.ts'
import type { RunService } from '../../services/runs.ts'
import { doc } from '../docs.ts'
import { answerWaiting } from '../prefer-wait.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { boolParam, IdParams, PageQuery, t } from '../schemas.ts'

export function workflowRunRoutes(auth: AuthPlugin, runs: RunService, outputs?: RunOutputs) {
  return new Elysia({ name: 'routes.workflows.runs', prefix: '/v1/workflows' })
    .use(auth)
    .post(
      '/:id/run',
      async ({ principal, params, body, request, set }) => {
        const started = await runs.start(principal, params.id, body ?? {}, request.headers)
        return answerWaiting(started, started.runId, { outputs, headers: request.headers, set })
      },
      {
        permission: 'workflow:execute',
        params: IdParams,
        body: t.Optional(RunBody),
        detail: doc({
          summary: 'Run a workflow now; answers the run id at once',
          description:
            'Runs the display version (draft, or live), also when paused; no cooldown or remaining-runs accounting. Reusing your own runId returns the existing run. With test: true the run is a test run: without a payload it takes the pinned sample of the first trigger that has one, and it is listed only with ?test=true. With `Prefer: wait=<seconds>` (at most 60) the answer waits for the run and adds `run: { id, status, output }` when it ended in time.',
          tags: ['runs'],
          permission: 'workflow:execute',
          response: T.Object({ runId: T.String(), run: T.Optional(WaitedRun) }),
          errors: [404, 409],
        }),
      },
    )
    .get(
      '/:id/runs',
      ({ principal, params, query }) =>
        runs.list(principal, pageRequest(query), {
          workflowId: params.id,
          status: query.status,
          test: query.test === true,
        }),
      {
        permission: 'run:read',
        params: IdParams,
        query: t.Composite([
          PageQuery,
          t.Object({
            status: t.Optional(t.String({ maxLength: 20 })),
            test: t.Optional(boolParam('test', 'true lists test runs only; production runs otherwise')),
          }),
        ]),
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
