/**
 * Keeps the schedule rows of a workflow in line with its live version and state, inside the
 * transaction that changed them: the engine's event recorder calls it for every workflow event
 * that can start or stop ticks (published, paused, resumed, refilled, archived, unarchived),
 * so a row is never out of step with its workflow. At start the scheduler reconciles every
 * workflow once more (rows of versions published before schedules existed, plugins changed).
 *
 * Rules: a row per schedule trigger node of the live version; its next tick stays as it is
 * while the trigger is unchanged and the workflow stays active (so ticks missed during an
 * outage are still seen as missed), and is computed afresh from now when the trigger changes
 * or the workflow becomes active again: a pause has no ticks to catch up.
 */
import { versions, workflows } from '../../core/store/workflows.ts'
import type { Definition } from '../../core/domain/workflow.ts'
import type { RecordedEvent } from '../../core/domain-events.ts'
import { canonicalJson } from '../../core/json.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { Ids } from '../../core/ports/ids.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { Dialect, SqlExecutor } from '../../core/ports/store.ts'
import type { Registry } from '../../core/plugin/registry.ts'
import type { TriggerSchedule } from '../../core/plugin/sdk.ts'
import { type ScheduleRow, schedules } from '../../core/store/schedules.ts'
import type { WorkflowRow } from '../../core/store/workflows.ts'
import { triggerIdsOf } from '../engine/plan.ts'

/** Workflow events after which a workflow's schedule rows may need to change. */
export const SCHEDULE_EVENTS: ReadonlySet<string> = new Set([
  'workflow.published',
  'workflow.paused',
  'workflow.resumed',
  'workflow.refilled',
  'workflow.archived',
  'workflow.unarchived',
])

export interface ReconcilerDeps {
  registry: Registry
  clock: Clock
  ids: Ids
  logger: Logger
  dialect: Dialect
}

interface Wanted {
  nodeId: string
  type: string
  config: string
  schedule: TriggerSchedule
}

/** Keeps a workflow's schedule rows in line with its live version and state. */
export interface Reconciler {
  /**
   * Replaces, inside `tx`, one workflow's rows with those its live version and state want.
   * `paused`: an event paused it in this transaction, before its row says so.
   */
  reconcile(tx: SqlExecutor, workflowId: string, paused?: boolean): Promise<void>
  /** The time-based trigger's occurrences for a row's (or node's) configuration; null when it cannot say. */
  scheduleOf(type: string, config: string): TriggerSchedule | null
  /** The engine recorder's transactional listener: reconciles after schedule-relevant workflow events. */
  onEvents(tx: SqlExecutor, events: readonly RecordedEvent[]): Promise<void>
  /** Workflows whose rows may need reconciling: live versions that use a time-based trigger, and workflows with rows. */
  candidates(db: SqlExecutor): Promise<string[]>
}

export function createReconciler(deps: ReconcilerDeps): Reconciler {
  const { registry, clock } = deps

  /** The time-based trigger's occurrences for a row's (or node's) configuration; null when it cannot say. */
  function scheduleOf(type: string, config: string): TriggerSchedule | null {
    const trigger = registry.trigger(type)
    if (!trigger?.schedule) return null
    try {
      return trigger.schedule(JSON.parse(config))
    } catch (error) {
      deps.logger.warn('a schedule trigger has a configuration it cannot use', { type, error: String(error) })
      return null
    }
  }

  async function wanted(tx: SqlExecutor, w: WorkflowRow): Promise<Wanted[]> {
    if (w.live_version === null) return []
    const content = w.live_version === null ? undefined : await versions.content(tx, w.id, w.live_version)
    if (!content) return []
    const definition = (JSON.parse(content) as { definition: Definition }).definition
    const out: Wanted[] = []
    for (const nodeId of triggerIdsOf(definition)) {
      const node = definition.nodes[nodeId]
      if (!node || !registry.trigger(node.type, node.typeVersion)?.schedule) continue
      const config = canonicalJson(node.payload ?? {})
      const schedule = scheduleOf(node.type, config)
      if (schedule) out.push({ nodeId, type: node.type, config, schedule })
    }
    return out
  }

  /** Brings one workflow's rows in line, inside `tx`. `paused` says an event paused it in this transaction. */
  async function reconcile(tx: SqlExecutor, workflowId: string, paused = false): Promise<void> {
    const w = await workflows.lockById(tx, deps.dialect, workflowId)
    const rows = await schedules.byWorkflow(tx, workflowId)
    const want = w ? await wanted(tx, w) : []
    const active = !!w && !paused && w.live_status === 'active' && w.archived_at === null
    const now = clock.now()
    for (const row of rows) {
      if (!want.some((x) => x.nodeId === row.trigger_node_id)) await schedules.remove(tx, row.id)
    }
    for (const x of want) {
      const row = rows.find((r) => r.trigger_node_id === x.nodeId)
      if (!row) await insert(tx, w!, x, active, now)
      else await update(tx, row, w!, x, active, now)
    }
  }

  function insert(tx: SqlExecutor, w: WorkflowRow, x: Wanted, active: boolean, now: number) {
    return schedules.insert(tx, {
      id: deps.ids.next('sch'),
      organizationId: w.organization_id,
      workflowId: w.id,
      triggerNodeId: x.nodeId,
      triggerType: x.type,
      config: x.config,
      version: w.live_version!,
      active,
      nextFireAt: x.schedule.next(now),
      at: now,
    })
  }

  async function update(tx: SqlExecutor, row: ScheduleRow, w: WorkflowRow, x: Wanted, active: boolean, now: number) {
    const changed = row.trigger_type !== x.type || row.config !== x.config
    const waking = active && row.active !== 1
    const next = changed || waking ? x.schedule.next(now) : row.next_fire_at
    if (!changed && !waking && row.version === w.live_version && (row.active === 1) === active) return
    await schedules.update(tx, {
      id: row.id,
      triggerType: x.type,
      config: x.config,
      version: w.live_version!,
      active,
      nextFireAt: next,
      at: now,
    })
  }

  return {
    reconcile,
    scheduleOf,
    /** The engine recorder's transactional listener: reconciles after schedule-relevant workflow events. */
    async onEvents(tx: SqlExecutor, events: readonly RecordedEvent[]): Promise<void> {
      for (const e of events) {
        if (e.workflowId && SCHEDULE_EVENTS.has(e.type)) await reconcile(tx, e.workflowId, e.type === 'workflow.paused')
      }
    },
    /** Workflows whose rows may need reconciling: live versions that use a time-based trigger, and workflows with rows. */
    async candidates(db: SqlExecutor): Promise<string[]> {
      const types = registry
        .triggers()
        .filter((t) => t.schedule)
        .map((t) => t.type)
      const live = await workflows.liveUsingAny(db, types)
      const withRows = await schedules.workflowIds(db)
      return [...new Set([...live, ...withRows])]
    },
  }
}
