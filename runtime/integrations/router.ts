/**
 * The engine's event router: routes one integration event in one organization and stores it.
 *
 * Order of effects, in ONE transaction (runs start and waiting runs wake after the commit):
 * 1. claim the event: insert its `webhook_events` row; if a row with the same (organization,
 *    source, provider event id, trigger type) exists, this is a duplicate and nothing else
 *    happens (Postgres makes a concurrent second insert wait for the first, then skip it);
 * 2. resume the runs waiting for it: each matched `waits` row is deleted (a claim: one event
 *    resumes a wait once) and a RESUME with the event body goes to the run's inbox;
 * 3. start the live workflows whose trigger matches, except those whose waiting run this event
 *    just resumed (a reply continues the conversation it answers instead of starting another);
 *    each run's idempotency key comes from the provider event id;
 * 4. settle the row with what happened.
 *
 * The answer is the Webhook result: `triggered` when a run started, else `resumed` when a
 * waiting run resumed, else `skipped` with a reason; `runIds` lists started, then resumed runs.
 */
import type { EventRouter, RoutedEvent, RoutedResult, TriggerEvent } from '../../core/ports/engine.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { Ids } from '../../core/ports/ids.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { SqlExecutor, Store } from '../../core/ports/store.ts'
import type { Registry } from '../../core/plugin/registry.ts'
import { liveTriggers } from '../../core/store/live-triggers.ts'
import { runInbox, runWaits } from '../../core/store/run-side.ts'
import { workflows } from '../../core/store/workflows.ts'
import { type WebhookEventRow, webhookEvents } from '../../core/store/webhook-events.ts'
import { iso } from '../../core/time.ts'
import type { Backlog } from '../backlog.ts'
import type { EngineDispatcher } from '../dispatch.ts'
import { createRoutePlanner, type RoutePlan } from './route-plan.ts'
import { redactHeaders } from '../../core/security/redact.ts'
import { noMask, type SecretMasks } from '../../core/security/value-mask.ts'
import { publishEvents, type RecordedEvent } from '../../core/events.ts'
import type { Bus } from '../../core/ports/bus.ts'
import { workflowPaused } from '../../core/domain/run-events.ts'
import type { EventRecorder } from '../events.ts'

export interface EventRouterDeps {
  store: Store
  registry: Registry
  dispatcher: EngineDispatcher
  clock: Clock
  ids: Ids
  logger: Logger
  /** After commit: tells whoever executes a run that its inbox has an event. */
  wake(runId: string): void
  /** An event that would start runs is refused (429) while the backlog is full; one that only resumes runs is not. */
  backlog?: Backlog
  /** The organization's secret values, masked in the event before it is stored, starts runs or resumes them. */
  masks?: SecretMasks
  /** Records the pauses of workflows whose connector the platform revoked (schedules and live triggers follow). */
  recorder?: EventRecorder
  /** Where recorded events are announced after the commit. */
  bus?: Bus
}

type Admit = Parameters<Parameters<EngineDispatcher['transaction']>[0]>[1]

interface Committed {
  result: RoutedResult
  resumed: string[]
  recorded?: RecordedEvent[]
}

const unique = (list: readonly string[]) => [...new Set(list)]
/** Idempotency keys are stored in full; a provider id is capped at 255 characters by the host. */
const runKey = (event: RoutedEvent, rowId: string, nodeId: string) =>
  event.replayOf
    ? `integration:replay:${rowId}:${nodeId}`
    : `integration:${event.source}:${event.triggerType}:${event.providerEventId}:${nodeId}`

export function createEventRouter(deps: EventRouterDeps): EventRouter {
  const planner = createRoutePlanner({ db: deps.store, registry: deps.registry, logger: deps.logger })

  function rowOf(id: string, event: RoutedEvent, plan: RoutePlan, now: number): WebhookEventRow {
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

  async function resume(tx: SqlExecutor, plan: RoutePlan, body: unknown, now: number) {
    const resumed: { runId: string; workflowId: string }[] = []
    for (const wait of plan.waits) {
      if ((await runWaits.claim(tx, wait.id)) === 0) continue
      const event = JSON.stringify({ type: 'RESUME', key: wait.node_key, data: body ?? null })
      await runInbox.add(tx, { id: deps.ids.next('evt'), runId: wait.run_id, event, at: now })
      resumed.push({ runId: wait.run_id, workflowId: wait.workflow_id })
    }
    return resumed
  }

  async function start(
    tx: SqlExecutor,
    admit: Admit,
    event: RoutedEvent,
    plan: RoutePlan,
    rowId: string,
    triggerEvent: TriggerEvent,
    skip: Set<string>,
  ) {
    const started: { runId: string; workflowId: string }[] = []
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
        idempotencyKey: runKey(event, rowId, t.trigger_node_id),
        eventId: rowId,
      })
      if (result.action === 'triggered') started.push({ runId: result.runId, workflowId: t.workflow_id })
      else reasons.push(result.reason)
    }
    return { started, reasons }
  }

  /**
   * Pauses, with `invalid_chat`, the organization's active live workflows that use a trigger of
   * the plugin whose connector the platform revoked.
   */
  async function pauseRevoked(tx: SqlExecutor, event: RoutedEvent, now: number) {
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

  async function commit(
    event: RoutedEvent,
    plan: RoutePlan,
    triggerEvent: TriggerEvent,
    now: number,
  ): Promise<Committed> {
    const id = deps.ids.next('evt')
    const row = rowOf(id, event, plan, now)
    return deps.dispatcher.transaction(async (tx, admit): Promise<Committed> => {
      if (!(await webhookEvents.claim(tx, row))) {
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
      if (event.connectorRevoked) {
        const paused = await pauseRevoked(tx, event, now)
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
      if (plan.reason)
        return { result: { action: 'skipped', eventId: id, reason: plan.reason, runIds: [] }, resumed: [] }
      const resumed = await resume(tx, plan, event.body, now)
      const { started, reasons } = await start(
        tx,
        admit,
        event,
        plan,
        id,
        triggerEvent,
        new Set(resumed.map((r) => r.workflowId)),
      )
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
    })
  }

  return {
    async route(unmasked) {
      const mask = deps.masks
        ? (deps.masks.peek(unmasked.organizationId) ?? (await deps.masks.of(unmasked.organizationId)))
        : noMask
      const event =
        mask === noMask ? unmasked : { ...unmasked, body: mask(unmasked.body), headers: mask(unmasked.headers) }
      const now = deps.clock.now()
      const triggerEvent: TriggerEvent = {
        type: event.triggerType,
        body: event.body ?? null,
        headers: redactHeaders(event.headers),
        receivedAt: iso(now),
      }
      const plan = await planner.plan(event, triggerEvent, now)
      if (deps.backlog && !plan.reason && plan.triggers.length > 0) deps.backlog.check(event.organizationId)
      const { result, resumed, recorded } = await commit(event, plan, triggerEvent, now)
      if (recorded?.length && deps.bus) publishEvents(deps.bus, recorded)
      for (const runId of resumed) deps.wake(runId)
      return result
    },
  }
}
