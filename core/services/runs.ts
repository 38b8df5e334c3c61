/**
 * Runs as the API shows them: starting them (through the engine's dispatcher), reading,
 * listing, steering (cancel, retry, resume); counting them and the failure rate
 * (run-reports.ts), bulk cancel and retry (run-bulk.ts), and what a run stream may follow
 * (run-streams.ts).
 */
import type { Page, PageRequest } from '../domain/common.ts'
import type { Run, RunBody, TriggeredBy, WebhookResult } from '../domain/run.ts'
import { isTerminal } from '../domain/run-lifecycle.ts'
import type { Definition } from '../domain/workflow.ts'
import { AppError, conflict, notFound, unauthorized } from '../errors.ts'
import { parseJson } from '../json.ts'
import type { Clock } from '../ports/clock.ts'
import {
  type Dispatcher,
  type DispatchResult,
  PAYMENT_REQUIRED,
  type RunControl,
  type RunProjection,
  type TriggerEvent,
} from '../ports/engine.ts'
import type { Store } from '../ports/store.ts'
import { timingSafeEqual } from '../security/hash.ts'
import { type RunFilter, type RunRow, runs } from '../store/runs.ts'
import { versions, workflows } from '../store/workflows.ts'
import { iso } from '../time.ts'
import type { Principal } from './auth.ts'
import { authorize, guarded } from './operations.ts'
import { redactHeaders } from '../security/redact.ts'
import { BoundedMap } from '../bounded-map.ts'
import { bulkOperations } from './run-bulk.ts'
import { reportOperations } from './run-reports.ts'
import { streamOperations } from './run-streams.ts'

export interface RunServiceDeps {
  store: Store
  clock: Clock
  dispatcher: Dispatcher
  control: RunControl
  projection: RunProjection
}

/** Header names worth keeping on a trigger event; the rest (cookies, auth) never reach a run. */
const DROPPED_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization', 'x-api-key'])

export function triggerEvent(
  type: string,
  body: unknown,
  headers: Headers | Record<string, string>,
  at: number,
): TriggerEvent {
  const kept: Record<string, string> = {}
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers)
  for (const [k, v] of entries) if (!DROPPED_HEADERS.has(k.toLowerCase())) kept[k.toLowerCase()] = v
  // Credential-like headers (tokens, keys, signatures, cookies…) never reach what a run keeps.
  return { type, body: body ?? {}, headers: redactHeaders(kept), receivedAt: new Date(at).toISOString() }
}

/** A run as the API shows it: with its nodes (their inputs and results left out of a summary) and, in full, its definition. */
async function runOf(deps: Pick<RunServiceDeps, 'store' | 'projection'>, row: RunRow, summary: boolean): Promise<Run> {
  const run: Run = {
    id: row.id,
    workflowId: row.workflow_id,
    workflowVersion: row.workflow_version,
    organizationId: row.organization_id,
    status: row.status as Run['status'],
    triggerType: row.trigger_type,
    triggerNodeId: row.trigger_node_id,
    triggeredBy: row.triggered_by as TriggeredBy,
    eventId: row.event_id,
    retryOf: row.retry_of,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    error: parseJson(row.error, null),
    propValues: parseJson(row.prop_values, {}),
    vars: parseJson(row.vars, {}),
  }
  if (row.snapshot === undefined) return run
  const body = parseJson<{ definition: Definition } | null>(
    (await runs.definition(deps.store, row.definition_hash))?.body,
    null,
  )
  const definition = body?.definition ?? { nodes: {} }
  const projected = deps.projection.project(row.snapshot, definition, row.trigger_event)
  run.nodes = projected.nodes
  if (projected.vars) run.vars = projected.vars
  if (summary) {
    for (const node of Object.values(run.nodes)) {
      delete node.input
      delete node.result
      if (node.iterations) node.iterations = node.iterations.map(({ input: _i, result: _r, ...rest }) => rest)
    }
  } else {
    run.definition = definition
  }
  return run
}

export function createRunService(deps: RunServiceDeps) {
  /** The workflow an inbound webhook's secret opens, remembered to spare a read per webhook. */
  const webhookTargets = new BoundedMap<string, { id: string; organizationId: string }>(10_000)
  const { store, clock } = deps

  const toRun = (row: RunRow, summary: boolean) => runOf(deps, row, summary)

  async function load(caller: Principal, runId: string): Promise<RunRow> {
    const row = await runs.byId(store, caller.organizationId, runId)
    if (!row) throw notFound('run')
    return row
  }

  const page = async (rows: RunRow[], p: PageRequest): Promise<Page<Run>> => ({
    hasMore: rows.length > p.limit,
    items: await Promise.all(rows.slice(0, p.limit).map((r) => toRun(r, true))),
    limit: p.limit,
    offset: p.offset,
  })

  return guarded(
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

      async get(caller: Principal, runId: string, summary = false): Promise<Run> {
        return toRun(await load(caller, runId), summary)
      },

      async list(caller: Principal, p: PageRequest, filter: RunFilter): Promise<Page<Run>> {
        if (filter.workflowId && !(await workflows.byId(store, caller.organizationId, filter.workflowId)))
          throw notFound('workflow')
        return page(await runs.list(store, caller.organizationId, p, filter), p)
      },

      /** `POST /v1/workflows/{id}/run`: any non-archived workflow, its display version; no run controls. */
      async start(caller: Principal, workflowId: string, body: RunBody, headers: Headers): Promise<{ runId: string }> {
        const result = await deps.dispatcher.dispatch({
          organizationId: caller.organizationId,
          workflowId,
          version: 'display',
          automatic: false,
          triggeredBy: caller.userId ? 'user' : 'key',
          event: triggerEvent('manual', body.payload ?? {}, headers, clock.now()),
          runId: body.runId,
          propValues: body.propValues,
        })
        if (result.action === 'skipped') {
          if (result.reason === 'duplicate' && result.runId) return { runId: result.runId }
          throw conflict(`the run was not started: ${result.reason}`)
        }
        return { runId: result.runId }
      },

      /** `POST /v1/public/workflows/{id}/run`: anonymous runs of a public_execute live version, limited per caller address. */
      async startPublic(
        workflowId: string,
        body: RunBody,
        headers: Headers,
        caller: string,
      ): Promise<{ runId: string }> {
        const w = await workflows.publicTarget(store, workflowId)
        const live =
          w && w.live_version !== null && w.archived_at === null
            ? await versions.content(store, workflowId, w.live_version)
            : undefined
        if (!w || !live || parseJson<{ visibility?: string }>(live, {}).visibility !== 'public_execute')
          throw notFound('public workflow')
        const result = await deps.dispatcher.dispatch({
          organizationId: w.organization_id,
          workflowId,
          version: 'live',
          automatic: true,
          triggeredBy: 'public',
          publicCaller: caller,
          event: triggerEvent('manual', body.payload ?? {}, headers, clock.now()),
        })
        if (result.action === 'skipped' && result.reason === PAYMENT_REQUIRED) {
          throw conflict(
            'the workflow is paid (x402): its public run is not free; pay through POST /v1/x402/workflows/{id} when it is discoverable',
          )
        }
        if (result.action === 'skipped') throw conflict(`the run was not started: ${result.reason}`)
        return { runId: result.runId }
      },

      /**
       * `POST /v1/webhooks/{secret}`: the live version, with run controls. Null when the live
       * version is paid (x402Config): nothing was started, and the caller's payment decides.
       */
      async webhook(
        secret: string,
        body: unknown,
        headers: Headers,
        idempotencyKey: string | null,
      ): Promise<WebhookResult | null> {
        let w = webhookTargets.get(secret)
        if (!w) {
          const row = await workflows.webhookTarget(store, secret)
          if (!row || row.archived_at !== null) throw notFound('webhook')
          w = { id: row.id, organizationId: row.organization_id }
          webhookTargets.set(secret, w)
        }
        let result: DispatchResult
        try {
          // Admission checks the secret again on the row it reads: a rotated secret or an archived
          // workflow answers 404 even when the target came from the cache.
          result = await deps.dispatcher.dispatch({
            organizationId: w.organizationId,
            workflowId: w.id,
            version: 'live',
            automatic: true,
            triggeredBy: 'webhook',
            triggerSecret: secret,
            event: triggerEvent('webhook', body, headers, clock.now()),
            idempotencyKey: idempotencyKey ?? undefined,
          })
        } catch (error) {
          if (error instanceof AppError && error.status === 404) webhookTargets.delete(secret)
          throw error
        }
        if (result.action === 'skipped' && result.reason === PAYMENT_REQUIRED) return null
        return webhookResult(result)
      },

      async cancel(caller: Principal, runId: string): Promise<Run> {
        const row = await load(caller, runId)
        if (isTerminal(row.status)) throw conflict(`the run has already finished (${row.status})`)
        await deps.control.cancel(caller.organizationId, runId)
        return toRun(await load(caller, runId), true)
      },

      async retry(caller: Principal, runId: string): Promise<{ runId: string }> {
        const row = await load(caller, runId)
        if (row.status !== 'failure' && row.status !== 'cancelled')
          throw conflict(`only failed or cancelled runs can be retried; this one is ${row.status}`)
        return deps.dispatcher.retry(caller.organizationId, runId)
      },

      /** Resumes a waiting node; authorized by a key of the run's organization or by the workflow's trigger secret. */
      async resume(
        auth: { principal?: Principal; secret?: string },
        runId: string,
        nodeId: string,
        data: unknown,
      ): Promise<Run> {
        if (auth.principal) authorize(auth.principal, ['workflow:execute'])
        const row = auth.principal ? await load(auth.principal, runId) : await runs.byIdAnyOrg(store, runId)
        if (!row) throw notFound('run')
        if (!auth.principal) {
          const w = await workflows.byId(store, row.organization_id, row.workflow_id)
          if (!w || !auth.secret || !timingSafeEqual(w.trigger_secret, auth.secret))
            throw unauthorized('a valid API key or the workflow secret is required')
        }
        if (row.status !== 'waiting' && row.status !== 'running')
          throw conflict(`the run is ${row.status}, not waiting`)
        await deps.control.resume(row.organization_id, runId, nodeId, data)
        return toRun((await runs.byIdAnyOrg(store, runId))!, true)
      },
    },
  )
}

export function webhookResult(result: DispatchResult): WebhookResult {
  return result.action === 'triggered'
    ? { action: 'triggered', eventId: result.eventId, runIds: [result.runId] }
    : { action: 'skipped', eventId: result.eventId, reason: result.reason, runIds: result.runId ? [result.runId] : [] }
}

export type RunService = ReturnType<typeof createRunService>
