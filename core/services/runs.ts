/**
 * Runs as the API shows them: starting them (through the engine's dispatcher, run-starts.ts),
 * reading, listing, steering (cancel, retry, resume: run-steering.ts); counting them and the
 * failure rate (run-reports.ts), bulk cancel and retry (run-bulk.ts), and what a run stream may
 * follow (run-streams.ts).
 */
import type { Page, PageRequest } from '../domain/common.ts'
import type { Run, RunBody, WebhookResult } from '../domain/run.ts'
import { notFound } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Dispatcher, RunControl, RunProjection } from '../ports/engine.ts'
import type { Store } from '../ports/store.ts'
import { type RunFilter, runs } from '../store/runs.ts'
import { workflows } from '../store/workflows.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'
import { type BulkFilter, bulkOperations } from './run-bulk.ts'
import { reportOperations } from './run-reports.ts'
import { startOperations } from './run-starts.ts'
import { steeringOperations } from './run-steering.ts'
import { streamOperations } from './run-streams.ts'
import { loadRun, pageOf, runOf } from './run-view.ts'

export { triggerEvent, webhookResult } from './run-starts.ts'

export interface RunServiceDeps {
  store: Store
  clock: Clock
  dispatcher: Dispatcher
  control: RunControl
  projection: RunProjection
}

/** The run service: what the API, the builder chat and agents may do with runs. */
export interface RunService {
  /** `GET /v1/runs/{id}`: a run with its nodes; a summary leaves out their inputs and results. */
  get(caller: Principal, runId: string, summary?: boolean): Promise<Run>
  /** `GET /v1/runs`: run summaries matching a filter, a page at a time (a 404 for an unknown workflow). */
  list(caller: Principal, p: PageRequest, filter: RunFilter): Promise<Page<Run>>
  /** Runs by status, those pruned by retention included. */
  statusCounts(
    caller: Principal,
    filter: { workflowId?: string; since?: number; until?: number },
  ): Promise<{ total: number; counts: Record<string, number> }>
  /** Runs that finished in [from, to]: failed and partial counts and the failure percentage. */
  failureRate(
    caller: Principal,
    from: number,
    to: number,
  ): Promise<{ total: number; failed: number; partial: number; failureRate: number }>
  /** `POST /v1/workflows/{id}/run`: any non-archived workflow, its display version; no run controls. */
  start(caller: Principal, workflowId: string, body: RunBody, headers: Headers): Promise<{ runId: string }>
  /** Retries a failed or cancelled run as a new run. */
  retry(caller: Principal, runId: string): Promise<{ runId: string }>
  /** Retries the failed and cancelled runs matching a filter, oldest first and at most `expected`. */
  bulkRetry(
    caller: Principal,
    filter: BulkFilter,
    expected: number,
  ): Promise<{ cancelled: number } | { retried: number; runIds: string[] }>
  /** Cancels a run that has not finished; answers its summary. */
  cancel(caller: Principal, runId: string): Promise<Run>
  /** Cancels the unfinished runs matching a filter, oldest first and at most `expected`. */
  bulkCancel(
    caller: Principal,
    filter: BulkFilter,
    expected: number,
  ): Promise<{ cancelled: number } | { retried: number; runIds: string[] }>
  /** `POST /v1/public/workflows/{id}/run`: anonymous runs of a public_execute live version, limited per caller address. */
  startPublic(workflowId: string, body: RunBody, headers: Headers, caller: string): Promise<{ runId: string }>
  /** `POST /v1/webhooks/{secret}`: the live version, with run controls; null when the live version is paid. */
  webhook(secret: string, body: unknown, headers: Headers, idempotencyKey: string | null): Promise<WebhookResult | null>
  /** Resumes a waiting node; authorized by a key of the run's organization or by the workflow's trigger secret. */
  resume(auth: { principal?: Principal; secret?: string }, runId: string, nodeId: string, data: unknown): Promise<Run>
  /** Whether a run stream may follow `runId`, and whether the run has started; another organization's run is a 404. */
  followRun(caller: Principal, runId: string, detail: boolean): Promise<{ started: boolean }>
  /** Whether the caller's organization has the run a stream follows (one that never starts ends the stream). */
  runStarted(caller: Principal, runId: string, detail: boolean): Promise<boolean>
  /** Following a workflow's runs: 404 unless the caller's organization has the workflow. */
  followWorkflowRuns(caller: Principal, workflowId: string): Promise<void>
}

export function createRunService(deps: RunServiceDeps): RunService {
  const { store } = deps

  return guarded<RunService>(
    'runs',
    {
      get: ['run:read'],
      list: ['run:read'],
      statusCounts: ['run:read'],
      failureRate: ['stats:read'],
      start: ['workflow:execute'],
      retry: ['workflow:execute'],
      bulkRetry: ['workflow:execute'],
      cancel: ['run:cancel'],
      bulkCancel: ['run:cancel'],
      // Reached without a caller (public runs, webhooks) or with one checked inside (resume).
      startPublic: null,
      webhook: null,
      resume: null,
      // A stream's permission depends on its detail: checked inside.
      followRun: [],
      runStarted: [],
      followWorkflowRuns: ['run:stream'],
    },
    {
      ...reportOperations(store),
      ...bulkOperations(deps),
      ...streamOperations(store),
      ...startOperations(deps),
      ...steeringOperations(deps),

      async get(caller: Principal, runId: string, summary = false): Promise<Run> {
        return runOf(deps, await loadRun(store, caller, runId), summary)
      },

      async list(caller: Principal, p: PageRequest, filter: RunFilter): Promise<Page<Run>> {
        if (filter.workflowId && !(await workflows.byId(store, caller.organizationId, filter.workflowId)))
          throw notFound('workflow')
        // Test runs stay out of production views unless asked for.
        const listed = { ...filter, test: filter.test ?? false }
        return pageOf(deps, await runs.list(store, caller.organizationId, p, listed), p)
      },
    },
  )
}
