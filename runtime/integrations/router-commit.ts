/**
 * The transaction of routing one integration event (router.ts lists the order of effects):
 * claim the event row (dedupe), resume the runs waiting for it, start the live workflows whose
 * trigger matches, and settle the row with what happened.
 */
import type { RoutedEvent, RoutedResult, TriggerEvent } from '../../core/ports/engine.ts'
import type { SqlExecutor } from '../../core/ports/store.ts'
import { liveTriggers } from '../../core/store/live-triggers.ts'
import { runInbox, runWaits } from '../../core/store/run-side.ts'
import { workflows } from '../../core/store/workflows.ts'
import { type WebhookEventRow, webhookEvents } from '../../core/store/webhook-events.ts'
import { redactHeaders } from '../../core/security/redact.ts'
import type { RecordedEvent } from '../../core/domain-events.ts'
import { workflowPaused } from '../../core/domain/run-events.ts'
import type { EngineDispatcher } from '../engine/types.ts'
import type { RoutePlan } from './route-plan.ts'
import type { EventRouterDeps } from './router.ts'

type Admit = Parameters<Parameters<EngineDispatcher['transaction']>[0]>[1]

/** What the routing transaction committed, for the work done after it. */
export interface Committed {
  result: RoutedResult
  /** Runs resumed: their executors are woken after the commit. */
  resumed: string[]
  /** Events recorded (workflows paused), announced on the bus after the commit. */
  recorded?: RecordedEvent[]
}

/** One event being routed, inside its transaction. */
interface Routing {
  readonly tx: SqlExecutor
  readonly admit: Admit
  readonly event: RoutedEvent
  readonly plan: RoutePlan
  readonly triggerEvent: TriggerEvent
  /** The id of the event's `webhook_events` row. */
  readonly id: string
  readonly now: number
}

type Started = { runId: string; workflowId: string }

const unique = (list: readonly string[]) => [...new Set(list)]
/** Idempotency keys are stored in full; a provider id is capped at 255 characters by the host. */
const runKey = (event: RoutedEvent, rowId: string, nodeId: string) =>
  event.replayOf
    ? `integration:replay:${rowId}:${nodeId}`
    : `integration:${event.source}:${event.triggerType}:${event.providerEventId}:${nodeId}`

/** Routes the event in one transaction; see router.ts for the order of effects. */
export function commitEvent(
  deps: EventRouterDeps,
  event: RoutedEvent,
  plan: RoutePlan,
  triggerEvent: TriggerEvent,
  now: number,
): Promise<Committed> {
  const id = deps.ids.next('evt')
  const row = eventRow(id, event, plan, now)
  return deps.dispatcher.transaction(async (tx, admit): Promise<Committed> => {
    if (!(await webhookEvents.claim(tx, row))) return duplicate(tx, row, id)
    const routing: Routing = { tx, admit, event, plan, triggerEvent, id, now }
    if (event.connectorRevoked) return revoked(deps, routing)
    if (plan.reason) return { result: { action: 'skipped', eventId: id, reason: plan.reason, runIds: [] }, resumed: [] }
    return routed(deps, routing)
  })
}

function eventRow(id: string, event: RoutedEvent, plan: RoutePlan, now: number): WebhookEventRow {
  return {
    id,
    organization_id: event.organizationId,
    source: event.source,
    provider_event_id: event.providerEventId,
    dedup_key: event.replayOf ? null : event.providerEventId,
    trigger_type: event.triggerType,
    connector_id: event.connectorId,
    target: event.target ? JSON.stringify(event.target) : null,
    body: JSON.stringify(event.body ?? null),
    headers: JSON.stringify(redactHeaders(event.headers)),
    received_at: now,
    action: 'skipped',
    reason: plan.reason ?? null,
    problems: plan.problems ? JSON.stringify(plan.problems) : null,
    run_ids: '[]',
    workflow_ids: '[]',
    replay_of: event.replayOf ?? null,
  }
}

/** The event was routed before: the answer names the first row and its runs. */
async function duplicate(tx: SqlExecutor, row: WebhookEventRow, id: string): Promise<Committed> {
  const first = await webhookEvents.byDedupKey(tx, row)
  return {
    result: {
      action: 'skipped',
      eventId: first?.id ?? id,
      reason: 'duplicate',
      runIds: first ? JSON.parse(first.run_ids) : [],
    },
    resumed: [],
  }
}

async function revoked(deps: EventRouterDeps, { tx, event, id, now }: Routing): Promise<Committed> {
  const paused = await pauseRevoked(deps, tx, event, now)
  await webhookEvents.settle(tx, id, {
    action: 'skipped',
    reason: 'connector_revoked',
    runIds: [],
    workflowIds: paused.workflowIds,
  })
  return {
    result: { action: 'skipped', eventId: id, reason: 'connector_revoked', runIds: [] },
    resumed: [],
    recorded: paused.recorded,
  }
}

/** Resumes the waiting runs, starts the matching workflows, and settles the row. */
async function routed(deps: EventRouterDeps, routing: Routing): Promise<Committed> {
  const { tx, event, id } = routing
  const resumed = await resumeWaits(deps, routing)
  const { started, reasons } = await startRuns(routing, new Set(resumed.map((r) => r.workflowId)))
  const action = started.length > 0 ? 'triggered' : resumed.length > 0 ? 'resumed' : 'skipped'
  const reason =
    action !== 'skipped' ? null : (reasons[0] ?? (event.target?.runId ? 'not_waiting' : 'no_matching_workflow'))
  const runIds = unique([...started, ...resumed].map((r) => r.runId))
  await webhookEvents.settle(tx, id, {
    action,
    reason,
    runIds,
    workflowIds: unique([...started, ...resumed].map((r) => r.workflowId)),
  })
  return {
    result: { action, eventId: id, ...(reason ? { reason } : {}), runIds },
    resumed: unique(resumed.map((r) => r.runId)),
  }
}

/** Claims each matched wait (one event resumes a wait once) and sends its run a RESUME. */
async function resumeWaits(deps: EventRouterDeps, { tx, plan, event, now }: Routing): Promise<Started[]> {
  const resumed: Started[] = []
  for (const wait of plan.waits) {
    if ((await runWaits.claim(tx, wait.id)) === 0) continue
    const message = JSON.stringify({ type: 'RESUME', key: wait.node_key, data: event.body ?? null })
    await runInbox.add(tx, { id: deps.ids.next('evt'), runId: wait.run_id, event: message, at: now })
    resumed.push({ runId: wait.run_id, workflowId: wait.workflow_id })
  }
  return resumed
}

/** Admits a run for each matching trigger, except of the workflows in `skip`. */
async function startRuns(
  { tx, admit, event, plan, id, triggerEvent }: Routing,
  skip: ReadonlySet<string>,
): Promise<{ started: Started[]; reasons: string[] }> {
  const started: Started[] = []
  const reasons: string[] = []
  for (const t of plan.triggers) {
    if (skip.has(t.workflow_id)) continue
    // The node must still be live in the version the plan saw (a publish may have come between).
    const current = await liveTriggers.get(tx, t.workflow_id, t.trigger_node_id)
    if (!current || current.version !== t.version || current.trigger_type !== t.trigger_type) continue
    const result = await admit({
      organizationId: event.organizationId,
      workflowId: t.workflow_id,
      version: 'live',
      automatic: true,
      triggeredBy: 'integration',
      triggerNodeId: t.trigger_node_id,
      event: triggerEvent,
      idempotencyKey: runKey(event, id, t.trigger_node_id),
      eventId: id,
    })
    if (result.action === 'skipped') reasons.push(result.reason)
    else started.push({ runId: result.runId, workflowId: t.workflow_id })
  }
  return { started, reasons }
}

/**
 * Pauses, with `invalid_chat`, the organization's active live workflows that use a trigger of
 * the plugin whose connector the platform revoked.
 */
async function pauseRevoked(deps: EventRouterDeps, tx: SqlExecutor, event: RoutedEvent, now: number) {
  const types = deps.registry
    .triggers()
    .filter((t) => deps.registry.pluginOf('trigger', t.type)?.id === event.source)
    .map((t) => t.type)
  if (types.length === 0) return { workflowIds: [], recorded: [] }
  const rows = await liveTriggers.activeWorkflowsUsing(tx, event.organizationId, types)
  const workflowIds: string[] = []
  for (const r of rows) {
    const changed = await workflows.pauseLive(tx, { id: r.workflow_id, reason: 'invalid_chat', at: now })
    if (changed > 0) workflowIds.push(r.workflow_id)
  }
  const recorded = deps.recorder
    ? await deps.recorder.record(
        tx,
        workflowIds.map((workflowId) =>
          workflowPaused({ organizationId: event.organizationId, workflowId }, 'invalid_chat', now, {
            connectorId: event.connectorId,
          }),
        ),
      )
    : []
  return { workflowIds, recorded }
}
