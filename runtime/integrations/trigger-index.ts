/**
 * Keeps `live_triggers` in line with each workflow's live version and state, inside the
 * transaction that changed them: the engine's event recorder calls it for the same workflow
 * events as the schedule rows (published, paused, resumed, refilled, archived, unarchived).
 * Routing an integration event then reads the trigger nodes of one type in one organization
 * from an index instead of every definition. Rows are replaced whole; a workflow has few.
 *
 * Every trigger node of a live version has a row (manual and schedule triggers too), so "no
 * rows" means "not indexed yet": at start, live workflows published before the index existed
 * are filled in once.
 */
import { versions, workflows } from '../../core/store/workflows.ts'
import type { Definition } from '../../core/domain/workflow.ts'
import type { RecordedEvent } from '../../core/domain-events.ts'
import { canonicalJson } from '../../core/json.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { Dialect, SqlExecutor, Store } from '../../core/ports/store.ts'
import { type LiveTriggerRow, liveTriggers } from '../../core/store/live-triggers.ts'
import { triggerIdsOf } from '../engine/plan.ts'
import { SCHEDULE_EVENTS } from '../schedules/reconcile.ts'

/** The `live_triggers` index of every live workflow's trigger nodes. */
export interface TriggerIndex {
  /** Replaces one workflow's rows, inside `tx`. `paused`: an event paused it in this transaction, before its row says so. */
  reconcile(tx: SqlExecutor, workflowId: string, paused?: boolean): Promise<void>
  /** The engine recorder's transactional listener. */
  onEvents(tx: SqlExecutor, events: readonly RecordedEvent[]): Promise<void>
  /** Indexes live workflows that have no rows yet; resolves to how many. */
  backfill(store: Store): Promise<number>
}

export function createTriggerIndex(deps: { dialect: Dialect; logger: Logger }): TriggerIndex {
  /** Replaces one workflow's rows, inside `tx`. `paused`: an event paused it in this transaction, before its row says so. */
  async function reconcile(tx: SqlExecutor, workflowId: string, paused = false): Promise<void> {
    const w = await workflows.lockById(tx, deps.dialect, workflowId)
    const rows: LiveTriggerRow[] = []
    const version =
      w && w.live_version !== null && w.archived_at === null
        ? await versions.content(tx, w.id, w.live_version)
        : undefined
    if (w && version) {
      const definition = (JSON.parse(version) as { definition: Definition }).definition
      const active = !paused && w.live_status === 'active' ? 1 : 0
      for (const nodeId of triggerIdsOf(definition)) {
        const node = definition.nodes[nodeId]
        if (!node) continue
        rows.push({
          workflow_id: w.id,
          trigger_node_id: nodeId,
          organization_id: w.organization_id,
          trigger_type: node.type,
          config: canonicalJson(node.payload ?? {}),
          connector_id: node.connector?.id ?? null,
          version: w.live_version!,
          active,
        })
      }
    }
    await liveTriggers.replace(tx, workflowId, rows)
  }

  return {
    reconcile,
    /** The engine recorder's transactional listener. */
    async onEvents(tx: SqlExecutor, events: readonly RecordedEvent[]): Promise<void> {
      for (const e of events) {
        if (e.workflowId && SCHEDULE_EVENTS.has(e.type)) await reconcile(tx, e.workflowId, e.type === 'workflow.paused')
      }
    },
    /** Indexes live workflows that have no rows yet; resolves to how many. */
    async backfill(store: Store): Promise<number> {
      const ids = await liveTriggers.unindexed(store)
      for (const { id } of ids) await store.write((tx) => reconcile(tx, id))
      if (ids.length > 0) deps.logger.info('indexed the triggers of live workflows', { count: ids.length })
      return ids.length
    },
  }
}
