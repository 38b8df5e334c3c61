/**
 * Keeps the subscription rows of a workflow in line with its live version and state, inside the
 * transaction that changed them (the engine's event recorder calls it, as it does the poll
 * reconciler). The server compares the subscriptions it wants (the trigger nodes with `onEnable`
 * of a live, active, unarchived version) with those it recorded:
 * - a recorded subscription still wanted with the same type and configuration is kept, so that
 *   re-publishing an unchanged node keeps it;
 * - one no longer wanted (paused, archived, deleted, or its node changed) goes to `disabling`:
 *   the keeper calls `onDisable` after the commit, and nothing waits for it;
 * - a wanted instance without a subscription (the publish enabled another draft, a refill woke
 *   the workflow, a crash) gets an `enabling` row, which the keeper enables.
 */
import type { RecordedEvent } from '../../core/domain-events.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { Ids } from '../../core/ports/ids.ts'
import type { Dialect, SqlExecutor } from '../../core/ports/store.ts'
import type { AnyTrigger, Registry } from '../../core/plugin/registry.ts'
import { triggerSubscriptions } from '../../core/store/trigger-subscriptions.ts'
import { type WorkflowRow, workflows } from '../../core/store/workflows.ts'
import { liveDefinition, onWorkflowEvents, reconcileCandidates } from '../trigger-instances.ts'
import { type SubscribedInstance, subscribedInstances } from './calls.ts'

export interface SubscriptionReconcilerDeps {
  registry: Registry
  clock: Clock
  ids: Ids
  dialect: Dialect
}

export interface SubscriptionReconciler {
  /** Brings one workflow's rows in line, inside `tx`; `paused`: an event paused it in this transaction. */
  reconcile(tx: SqlExecutor, workflowId: string, paused?: boolean): Promise<void>
  /** The engine recorder's transactional listener. */
  onEvents(tx: SqlExecutor, events: readonly RecordedEvent[]): Promise<void>
  /** Workflows to reconcile at start: live versions using a trigger with onEnable, and workflows with live rows. */
  candidates(db: SqlExecutor): Promise<string[]>
}

const subscribed = (trigger: AnyTrigger) => !!trigger.onEnable

export function createSubscriptionReconciler(deps: SubscriptionReconcilerDeps): SubscriptionReconciler {
  async function wanted(tx: SqlExecutor, w: WorkflowRow | undefined, paused: boolean): Promise<SubscribedInstance[]> {
    if (!w || paused || w.live_status !== 'active' || w.archived_at !== null) return []
    const definition = await liveDefinition(tx, w)
    return definition ? subscribedInstances(deps.registry, definition) : []
  }

  async function reconcile(tx: SqlExecutor, workflowId: string, paused = false): Promise<void> {
    const w = await workflows.lockById(tx, deps.dialect, workflowId)
    const want = await wanted(tx, w, paused)
    const rows = await triggerSubscriptions.live(tx, workflowId)
    const now = deps.clock.now()
    // Enabled rows first: of two rows for one instance (two publishes raced), the enabled one stays.
    const ordered = [...rows.filter((r) => r.state === 'enabled'), ...rows.filter((r) => r.state !== 'enabled')]
    const covered = new Set<SubscribedInstance>()
    for (const row of ordered) {
      const x = want.find(
        (x) => !covered.has(x) && x.nodeId === row.node_id && x.type === row.trigger_type && x.config === row.config,
      )
      if (x) covered.add(x)
      else await triggerSubscriptions.leave(tx, row, now)
    }
    for (const x of want) {
      if (covered.has(x)) continue
      await triggerSubscriptions.insert(tx, {
        id: deps.ids.next('sub'),
        organizationId: w!.organization_id,
        workflowId,
        nodeId: x.nodeId,
        triggerType: x.type,
        config: x.config,
        state: 'enabling',
        sealedStore: null,
        expiresAt: null,
        nextAttemptAt: now,
        at: now,
      })
    }
  }

  return {
    reconcile,
    onEvents: onWorkflowEvents(reconcile),
    candidates: async (db) =>
      reconcileCandidates(db, deps.registry, subscribed, await triggerSubscriptions.workflowIds(db)),
  }
}
