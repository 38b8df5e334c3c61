/**
 * Starting runs from the API: a caller's manual run, an anonymous run of a public workflow, and
 * an inbound webhook. Each goes through the engine's dispatcher; the trigger event keeps no
 * credential-like header.
 */
import type { RunBody, WebhookResult } from '../domain/run.ts'
import { AppError, conflict, notFound } from '../errors.ts'
import { parseJson } from '../json.ts'
import { type DispatchResult, PAYMENT_REQUIRED, type TriggerEvent } from '../ports/engine.ts'
import { redactHeaders } from '../security/redact.ts'
import { displayVersion, versions, workflows } from '../store/workflows.ts'
import type { WorkflowContent } from '../domain/workflow.ts'
import { BoundedMap } from '../bounded-map.ts'
import type { Principal } from './auth.ts'
import type { RunServiceDeps } from './runs.ts'

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

export function webhookResult(result: DispatchResult): WebhookResult {
  return result.action !== 'skipped'
    ? { action: result.action, eventId: result.eventId, runIds: [result.runId] }
    : { action: 'skipped', eventId: result.eventId, reason: result.reason, runIds: result.runId ? [result.runId] : [] }
}

/** What starting runs needs. */
type StartDeps = Pick<RunServiceDeps, 'store' | 'clock' | 'dispatcher'>

/** `POST /v1/public/workflows/{id}/run`: anonymous runs of a public_execute live version, limited per caller address. */
async function startPublic(
  deps: StartDeps,
  workflowId: string,
  body: RunBody,
  headers: Headers,
  caller: string,
): Promise<{ runId: string }> {
  const { store, clock } = deps
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
}

/**
 * A test run's sample when it is given no payload: the first trigger of the draft (else the live
 * version) with a pinned payload. Null when none is pinned.
 */
async function pinnedSample(
  store: StartDeps['store'],
  organizationId: string,
  workflowId: string,
): Promise<{ triggerNodeId: string; payload: Record<string, unknown> } | null> {
  const w = await workflows.byId(store, organizationId, workflowId)
  if (!w) return null
  const content = parseJson<Partial<WorkflowContent>>(await versions.content(store, w.id, displayVersion(w)), {})
  const triggers = content.definition?.triggerNodeIds ?? ['root']
  const triggerNodeId = triggers.find((id) => content.pinnedData?.[id] !== undefined)
  if (!triggerNodeId) return null
  return { triggerNodeId, payload: content.pinnedData![triggerNodeId] as Record<string, unknown> }
}

/** The starting operations of the run service. */
export function startOperations(deps: StartDeps) {
  /** The workflow an inbound webhook's secret opens, remembered to spare a read per webhook. */
  const webhookTargets = new BoundedMap<string, { id: string; organizationId: string }>(10_000)
  const { store, clock } = deps

  return {
    /** `POST /v1/workflows/{id}/run`: any non-archived workflow, its display version; no run controls. */
    async start(caller: Principal, workflowId: string, body: RunBody, headers: Headers): Promise<{ runId: string }> {
      const pinned = body.test && !body.payload ? await pinnedSample(store, caller.organizationId, workflowId) : null
      const result = await deps.dispatcher.dispatch({
        organizationId: caller.organizationId,
        workflowId,
        version: 'display',
        automatic: false,
        triggeredBy: caller.userId ? 'user' : 'key',
        event: triggerEvent('manual', body.payload ?? pinned?.payload ?? {}, headers, clock.now()),
        ...(pinned ? { triggerNodeId: pinned.triggerNodeId } : {}),
        runId: body.runId,
        propValues: body.propValues,
        ...(body.test ? { test: true } : {}),
      })
      if (result.action === 'skipped') {
        if (result.reason === 'duplicate' && result.runId) return { runId: result.runId }
        throw conflict(`the run was not started: ${result.reason}`)
      }
      return { runId: result.runId }
    },

    startPublic: (workflowId: string, body: RunBody, headers: Headers, caller: string) =>
      startPublic(deps, workflowId, body, headers, caller),

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
  }
}
