/**
 * Keeps the poll rows of a workflow in line with its live version and state, inside the
 * transaction that changed them (the engine's event recorder calls it, as it does the schedule
 * reconciler). A row per polling trigger node of the live version:
 * - an unchanged node (same type, payload and connector) keeps its row, cursor and seen keys
 *   across re-publishing, pausing and resuming: items that appeared while the workflow was
 *   paused start their runs when it is resumed, once each;
 * - a changed node is a new trigger instance: a new row, which records what is there at its
 *   first poll (unless its payload says `fireExisting: true`);
 * - a node no longer in the live version, or a workflow gone, loses its row.
 */
import type { RecordedEvent } from '../../core/domain-events.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { Ids } from '../../core/ports/ids.ts'
import type { Dialect, SqlExecutor } from '../../core/ports/store.ts'
import type { AnyTrigger, Registry } from '../../core/plugin/registry.ts'
import { type TriggerPollRow, triggerPolls } from '../../core/store/trigger-polls.ts'
import { type WorkflowRow, workflows } from '../../core/store/workflows.ts'
import {
  liveDefinition,
  onWorkflowEvents,
  reconcileCandidates,
  type TriggerInstanceConfig,
  triggerInstances,
} from '../trigger-instances.ts'

export interface PollReconcilerDeps {
  registry: Registry
  clock: Clock
  ids: Ids
  dialect: Dialect
}

/** Keeps poll rows in step with workflows. */
export interface PollReconciler {
  /** Brings one workflow's rows in line, inside `tx`; `paused`: an event paused it in this transaction. */
  reconcile(tx: SqlExecutor, workflowId: string, paused?: boolean): Promise<void>
  /** The engine recorder's transactional listener. */
  onEvents(tx: SqlExecutor, events: readonly RecordedEvent[]): Promise<void>
  /** Workflows whose rows may need reconciling at start: live versions using a polling trigger, and workflows with rows. */
  candidates(db: SqlExecutor): Promise<string[]>
}

/** A polling trigger node of a live version, as its row records it. */
export interface PollConfig {
  payload: Record<string, unknown>
  connector?: { type?: string; id?: string }
}

const polling = (trigger: AnyTrigger) => !!trigger.poll

export function createPollReconciler(deps: PollReconcilerDeps): PollReconciler {
  async function wanted(tx: SqlExecutor, w: WorkflowRow): Promise<TriggerInstanceConfig[]> {
    const definition = await liveDefinition(tx, w)
    return definition ? triggerInstances(deps.registry, definition, polling) : []
  }

  async function reconcile(tx: SqlExecutor, workflowId: string, paused = false): Promise<void> {
    const w = await workflows.lockById(tx, deps.dialect, workflowId)
    const rows = await triggerPolls.byWorkflow(tx, workflowId)
    const want = w ? await wanted(tx, w) : []
    const active = !!w && !paused && w.live_status === 'active' && w.archived_at === null
    const now = deps.clock.now()
    for (const row of rows) {
      const x = want.find((x) => x.nodeId === row.node_id)
      if (!x || x.type !== row.trigger_type || x.config !== row.config) await triggerPolls.remove(tx, row.id)
    }
    for (const x of want) {
      const row = rows.find((r) => r.node_id === x.nodeId && r.trigger_type === x.type && r.config === x.config)
      if (!row) await insert(tx, w!, x, active, now)
      else await carry(tx, row, w!, active, now)
    }
  }

  function insert(tx: SqlExecutor, w: WorkflowRow, x: TriggerInstanceConfig, active: boolean, now: number) {
    return triggerPolls.insert(tx, {
      id: deps.ids.next('pol'),
      organizationId: w.organization_id,
      workflowId: w.id,
      nodeId: x.nodeId,
      triggerType: x.type,
      config: x.config,
      version: w.live_version!,
      active,
      nextPollAt: now,
      at: now,
    })
  }

  async function carry(tx: SqlExecutor, row: TriggerPollRow, w: WorkflowRow, active: boolean, now: number) {
    if (row.version === w.live_version && (row.active === 1) === active) return
    // Waking up polls at once rather than after the interval it slept through.
    const waking = active && row.active !== 1
    await triggerPolls.carry(tx, {
      id: row.id,
      version: w.live_version!,
      active,
      nextPollAt: waking ? now : null,
      at: now,
    })
  }

  return {
    reconcile,
    onEvents: onWorkflowEvents(reconcile),
    candidates: async (db) => reconcileCandidates(db, deps.registry, polling, await triggerPolls.workflowIds(db)),
  }
}
