/**
 * The subscription keeper: the SubscriptionEnabler port the workflow service calls before a
 * change makes a version live (enable.ts), and the background calls for the rows that are due:
 * - `enabling`: onEnable, retried with backoff;
 * - `enabled` with an expiry: onEnable again with the same store, at 80% of the time left;
 * - `disabling`: onDisable, retried with exponential backoff (30 s doubling to an hour) for up to
 *   a day from the pause, then `failed` with the reason logged and kept on the row.
 * A call is made on a claimed row (see core/store/trigger-subscriptions.ts), outside any
 * transaction; two keepers never call the plugin for the same row at once.
 */
import { errorMessage } from '../../core/errors.ts'
import type { Bus } from '../../core/ports/bus.ts'
import type { Ids } from '../../core/ports/ids.ts'
import type { Store } from '../../core/ports/store.ts'
import type { SubscriptionEnabler } from '../../core/ports/subscriptions.ts'
import {
  type SubscriptionClaim,
  type TriggerSubscriptionRow,
  triggerSubscriptions,
} from '../../core/store/trigger-subscriptions.ts'
import { SCHEDULE_EVENTS } from '../schedules/reconcile.ts'
import { createDueRows } from '../due-rows.ts'
import { createEnabler, renewalAt } from './enable.ts'
import { type CallResult, callLifecycle, type SubscriptionCallDeps } from './calls.ts'
import type { SubscriptionReconciler } from './reconcile.ts'

export interface SubscriptionKeeperDeps extends SubscriptionCallDeps {
  store: Store
  bus: Bus
  ids: Ids
  reconciler: SubscriptionReconciler
  /** How often the loop looks for due rows it heard nothing of (default 1 s). */
  loopMs?: number
  batch?: number
}

export interface SubscriptionKeeper extends SubscriptionEnabler {
  start(): void
  stop(): Promise<void>
  /** Calls the plugins for the rows due now; resolves to the number of calls made. */
  tick(): Promise<number>
  /** Reconciles every workflow that has, or should have, subscriptions (at start). */
  reconcileAll(): Promise<number>
}

export const RETRY_BASE_MS = 30_000
export const RETRY_MAX_MS = 60 * 60_000
/** How long onDisable is retried before the subscription is given up as `failed`. */
export const GIVE_UP_MS = 24 * 60 * 60_000
export function createSubscriptionKeeper(deps: SubscriptionKeeperDeps): SubscriptionKeeper {
  const leaseMs = 2 * (deps.callTimeoutMs ?? 30_000)
  const enable = createEnabler(deps, () => rows.wake())

  async function handle(row: TriggerSubscriptionRow, stopping: AbortSignal): Promise<number> {
    const now = deps.clock.now()
    const claim: SubscriptionClaim = { id: row.id, state: row.state, until: now + leaseMs }
    if (!(await deps.store.write((tx) => triggerSubscriptions.claim(tx, row, claim.until, now)))) return 0
    if (row.state === 'disabling') await disable(row, claim, stopping)
    else if (row.state === 'enabling' || row.state === 'enabled') await enableRow(row, claim, stopping)
    return 1
  }

  async function disable(row: TriggerSubscriptionRow, claim: SubscriptionClaim, stopping: AbortSignal) {
    try {
      const trigger = deps.registry.trigger(row.trigger_type)
      if (!trigger) throw new Error(`no loaded plugin provides the trigger "${row.trigger_type}"`)
      if (trigger.onDisable) await callLifecycle(deps, 'onDisable', row, stopping)
      await deps.store.write((tx) => triggerSubscriptions.disabled(tx, claim, deps.clock.now()))
    } catch (error) {
      await failed(row, claim, error)
    }
  }

  async function enableRow(row: TriggerSubscriptionRow, claim: SubscriptionClaim, stopping: AbortSignal) {
    let result: CallResult
    try {
      result = await callLifecycle(deps, 'onEnable', row, stopping)
    } catch (error) {
      await failed(row, claim, error)
      return
    }
    const at = deps.clock.now()
    await deps.store.write(async (tx) => {
      const next = renewalAt(at, result.expiresAt)
      const kept = await triggerSubscriptions.enabled(tx, { claim, ...result, next, at })
      // No longer wanted while the call was made: what it made is removed in turn.
      if (!kept) await triggerSubscriptions.enabledWhileLeaving(tx, { id: row.id, sealedStore: result.sealedStore, at })
    })
  }

  /** A failed call: tried again after a backoff; onDisable (and a first onEnable) given up after a day. */
  async function failed(row: TriggerSubscriptionRow, claim: SubscriptionClaim, error: unknown) {
    const message = errorMessage(error).slice(0, 500)
    const at = deps.clock.now()
    const since = row.state === 'disabling' ? Number(row.disabling_since ?? row.updated_at) : Number(row.created_at)
    const fields = { subscriptionId: row.id, workflowId: row.workflow_id, nodeId: row.node_id, state: row.state }
    let next: number | null = at + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.min(Number(row.attempts), 16))
    if (row.state !== 'enabled') {
      if (at - since >= GIVE_UP_MS) next = null
      else next = Math.min(next, since + GIVE_UP_MS)
    }
    if (next === null) {
      const what = row.state === 'disabling' ? 'removed' : 'enabled'
      deps.logger.error(`a trigger subscription could not be ${what} within a day; given up`, {
        ...fields,
        error: message,
      })
    } else {
      deps.logger.warn('a trigger subscription call failed; it will be retried', { ...fields, error: message })
    }
    await deps.store.write((tx) => triggerSubscriptions.retry(tx, { claim, error: message, next, at }))
  }

  const rows = createDueRows<TriggerSubscriptionRow>({
    clock: deps.clock,
    bus: deps.bus,
    logger: deps.logger,
    name: 'the subscription keeper',
    loopMs: deps.loopMs,
    wakingEvents: SCHEDULE_EVENTS,
    due: (now) => triggerSubscriptions.due(deps.store, now, deps.batch ?? 50),
    handle,
    nextDue: async () => {
      const next = await triggerSubscriptions.nextDue(deps.store)
      return next === null ? null : Number(next)
    },
    describe: (row) => ({ subscriptionId: row.id, workflowId: row.workflow_id }),
  })

  return {
    enable,
    tick: rows.tick,
    start: rows.start,
    stop: rows.stop,
    async reconcileAll() {
      const ids = await deps.reconciler.candidates(deps.store)
      await Promise.all(ids.map((id) => deps.store.write((tx) => deps.reconciler.reconcile(tx, id))))
      return ids.length
    },
  }
}
