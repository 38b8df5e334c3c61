/**
 * Runs across workflows: one plugin per use case, composed in the order the API document lists them.
 * Starting a workflow's run and listing one workflow's runs are in workflow-runs.ts.
 */
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { Page, pageRequest } from '../../domain/common.ts'
import { FailureStatistics, ResumeBody, Run, RUN_STATUSES, type RunStatus, StatusCounts } from '../../domain/run.ts'
import { badRequest } from '../../errors.ts'
import { requirePermission } from '../../services/auth.ts'
import type { RunService } from '../../services/runs.ts'
import { doc } from '../docs.ts'
import { type AuthGate, type AuthPlugin, cookieOf, SESSION_COOKIE } from '../middleware/auth.ts'
import { boolParam, intParam, PageQuery, t } from '../schemas.ts'

const tags = ['runs']
const RunParams = t.Object({ runId: t.String({ minLength: 1, maxLength: 64 }) })
const StatusFilter = t.Optional(t.Union(RUN_STATUSES.map((s) => t.Literal(s))))
const RangeQuery = t.Object({
  workflowId: t.Optional(t.String({ maxLength: 64 })),
  since: t.Optional(intParam('since', { minimum: 0, description: 'Unix milliseconds: runs started at or after' })),
  until: t.Optional(intParam('until', { minimum: 0, description: 'Unix milliseconds: runs started before' })),
})
const BulkBody = (statuses: readonly RunStatus[]) =>
  t.Object({
    workflowId: t.Optional(t.String({ maxLength: 64 })),
    status: t.Optional(t.Union(statuses.map((s) => t.Literal(s)))),
    since: t.Optional(t.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    until: t.Optional(t.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    expectedCount: t.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'the count the caller confirmed; at most this many runs are acted on',
    }),
  })
const rangeOf = <Q extends { workflowId?: string; status?: RunStatus; since?: number; until?: number }>(q: Q) => ({
  workflowId: q.workflowId,
  status: q.status,
  since: q.since,
  until: q.until,
})

/** Listing, counting, reading, cancelling, retrying and resuming runs, and the failure rate. */
export function runRoutes(auth: AuthPlugin, gate: AuthGate, runs: RunService) {
  return new Elysia({ name: 'routes.runs' })
    .use(runListingRoutes(auth, runs))
    .use(runBulkRoutes(auth, runs))
    .use(singleRunRoutes(auth, runs))
    .use(runResumeRoutes(auth, gate, runs))
    .use(failureRateRoutes(auth, runs))
}

/** Listing runs and counting them by status. */
function runListingRoutes(auth: AuthPlugin, runs: RunService) {
  return new Elysia({ name: 'routes.runs.listing' })
    .use(auth)
    .get(
      '/v1/runs',
      ({ principal, query }) =>
        runs.list(principal, pageRequest(query), { ...rangeOf(query), test: query.test === true }),
      {
        permission: 'run:read',
        query: t.Composite([
          PageQuery,
          RangeQuery,
          t.Object({
            status: StatusFilter,
            test: t.Optional(boolParam('test', 'true lists test runs (of drafts) only')),
          }),
        ]),
        detail: doc({
          summary: 'List runs, newest first',
          description:
            'since and until (Unix milliseconds) bound the start time: since ≤ startedAt < until. Test runs are left out unless test=true.',
          tags,
          permission: 'run:read',
          response: Page(Run),
        }),
      },
    )
    .get('/v1/runs/status-counts', ({ principal, query }) => runs.statusCounts(principal, rangeOf(query)), {
      permission: 'run:read',
      query: RangeQuery,
      detail: doc({
        summary: 'Count runs by status',
        description: 'Runs pruned by retention count by the UTC day they started.',
        tags,
        permission: 'run:read',
        response: StatusCounts,
      }),
    })
}

/** Cancelling or retrying the runs that match a filter, at most as many as the caller confirmed. */
function runBulkRoutes(auth: AuthPlugin, runs: RunService) {
  return new Elysia({ name: 'routes.runs.bulk' })
    .use(auth)
    .post(
      '/v1/runs/bulk-cancel',
      ({ principal, body }) => runs.bulkCancel(principal, rangeOf(body), body.expectedCount),
      {
        permission: 'run:cancel',
        body: BulkBody(['running', 'waiting']),
        detail: doc({
          summary: 'Cancel the unfinished runs that match, at most expectedCount',
          description:
            'Show the count from GET /v1/runs/status-counts with the same filter, have it confirmed, and send it as expectedCount: no more runs than that are cancelled, oldest first.',
          tags,
          permission: 'run:cancel',
          response: T.Object({ cancelled: T.Integer() }),
          errors: [404],
        }),
      },
    )
    .post(
      '/v1/runs/bulk-retry',
      ({ principal, body }) => runs.bulkRetry(principal, rangeOf(body), body.expectedCount),
      {
        permission: 'workflow:execute',
        body: BulkBody(['failure', 'cancelled']),
        detail: doc({
          summary: 'Retry the failed and cancelled runs that match, at most expectedCount',
          description: 'As bulk-cancel: the count shown and confirmed bounds what is retried; each retry is a new run.',
          tags,
          permission: 'workflow:execute',
          response: T.Object({ retried: T.Integer(), runIds: T.Array(T.String()) }),
          errors: [404],
        }),
      },
    )
}

/** Reading one run, cancelling it, retrying it. */
function singleRunRoutes(auth: AuthPlugin, runs: RunService) {
  return new Elysia({ name: 'routes.runs.single' })
    .use(auth)
    .get(
      '/v1/runs/:runId',
      ({ principal, params, query }) => runs.get(principal, params.runId, query.summary === true),
      {
        permission: 'run:read',
        params: RunParams,
        query: t.Object({
          summary: t.Optional(boolParam('summary', 'true leaves out node inputs, results and the definition')),
        }),
        detail: doc({
          summary: 'Read a run',
          description: 'Poll until status is terminal: success, partial, failure or cancelled.',
          tags,
          permission: 'run:read',
          response: Run,
          errors: [404],
        }),
      },
    )
    .post('/v1/runs/:runId/cancel', ({ principal, params }) => runs.cancel(principal, params.runId), {
      permission: 'run:cancel',
      params: RunParams,
      detail: doc({
        summary: 'Cancel a running or waiting run',
        tags,
        permission: 'run:cancel',
        response: Run,
        errors: [404, 409],
      }),
    })
    .post('/v1/runs/:runId/retry', ({ principal, params }) => runs.retry(principal, params.runId), {
      permission: 'workflow:execute',
      params: RunParams,
      detail: doc({
        summary: 'Retry a failed or cancelled run',
        description: 'A new run of the same definition and event that reuses the results of the nodes that succeeded.',
        tags,
        permission: 'workflow:execute',
        response: T.Object({ runId: T.String() }),
        errors: [404, 409],
      }),
    })
}

/** Resuming a node that waits, authorized by a key, a session or the workflow secret. */
function runResumeRoutes(auth: AuthPlugin, gate: AuthGate, runs: RunService) {
  return new Elysia({ name: 'routes.runs.resume' }).use(auth).post(
    '/v1/runs/:runId/nodes/:nodeId/resume',
    async ({ params, body, query, request }) => {
      // A key, else the workflow's secret, else a signed-in person (cookie and CSRF token).
      const credential =
        request.headers.get('authorization') !== null || (!query.secret && cookieOf(request, SESSION_COOKIE) !== null)
      const principal = credential ? await gate.principalOf(request) : undefined
      if (principal) {
        if (principal.organizationProblem) throw principal.organizationProblem
        requirePermission(principal, 'workflow:execute')
      }
      if (!principal && !query.secret)
        throw badRequest('send an API key with workflow:execute, or the workflow secret as ?secret=')
      return runs.resume({ principal, secret: query.secret }, params.runId, params.nodeId, body?.data)
    },
    {
      params: t.Object({
        runId: t.String({ minLength: 1, maxLength: 64 }),
        nodeId: t.String({ minLength: 1, maxLength: 100 }),
      }),
      query: t.Object({ secret: t.Optional(t.String({ maxLength: 200 })) }),
      body: t.Optional(ResumeBody),
      detail: doc({
        summary: 'Resume a node waiting in a wait or approval',
        description:
          'Authorized by an API key (or a sign-in session) with workflow:execute, or by ?secret=<the workflow\'s triggerSecret>. Approval: { "data": { "approved": true } }.',
        tags,
        response: Run,
        errors: [401, 403, 404, 409],
      }),
    },
  )
}

/** The failure rate of the runs that finished in a time range. */
function failureRateRoutes(auth: AuthPlugin, runs: RunService) {
  return new Elysia({ name: 'routes.runs.failure-rate' })
    .use(auth)
    .get('/v1/metrics/failure-rate', ({ principal, query }) => runs.failureRate(principal, query.from, query.to), {
      permission: 'stats:read',
      query: t.Object({
        from: intParam('from', { minimum: 0, description: 'Unix milliseconds' }),
        to: intParam('to', { minimum: 0, description: 'Unix milliseconds; at most 365 days after from' }),
      }),
      detail: doc({
        summary: 'Failure rate of the runs that finished in a time range',
        tags: ['metrics'],
        permission: 'stats:read',
        response: FailureStatistics,
      }),
    })
}
