/**
 * Subscription rows: one per subscription a trigger instance (a trigger node of a live version
 * whose trigger has `onEnable`) made with its platform. The publish enables rows before it
 * commits; the reconciler (runtime/subscriptions) marks rows no longer wanted `disabling` inside
 * the transaction of the workflow event; the keeper claims due rows and calls the plugin outside
 * any transaction. A claim moves `next_attempt_at` to the end of the call's lease: a result is
 * written only while the row still has that claim and state.
 */
import type { SqlExecutor } from '../ports/store.ts'
import { type NewTriggerInstance, type TriggerInstanceColumns, triggerInstanceValues } from './trigger-instances.ts'

/** `enabling`: wanted, onEnable not done yet; `disabling`: onDisable pending; `failed`: onDisable given up. */
export type SubscriptionState = 'enabling' | 'enabled' | 'disabling' | 'disabled' | 'failed'

export interface TriggerSubscriptionRow extends TriggerInstanceColumns {
  state: SubscriptionState
  /** The instance's key-value store (a JSON object), sealed; null when empty or cleaned up. */
  sealed_store: string | null
  /** When the platform expires the subscription, as onEnable declared it. */
  expires_at: number | null
  enabled_at: number | null
  /** When the row started to wait for onDisable: the day of retries counts from here. */
  disabling_since: number | null
  /** Failed calls in a row (the backoff's exponent). */
  attempts: number
  /** When the keeper next calls the plugin; null when nothing is due (enabled without expiry, or done). */
  next_attempt_at: number | null
  last_error: string | null
  created_at: number
  updated_at: number
}

/** A claimed row: the state and `next_attempt_at` the claim set. */
export interface SubscriptionClaim {
  id: string
  state: SubscriptionState
  until: number
}

const LIVE = "('enabling', 'enabled')"

export const triggerSubscriptions = {
  byWorkflow: (db: SqlExecutor, workflowId: string) =>
    db.all<TriggerSubscriptionRow>(
      'SELECT * FROM trigger_subscriptions WHERE workflow_id = $1 ORDER BY node_id, created_at, id',
      [workflowId],
    ),

  get: (db: SqlExecutor, id: string) =>
    db.get<TriggerSubscriptionRow>('SELECT * FROM trigger_subscriptions WHERE id = $1', [id]),

  /** The rows of a workflow that hold, or are about to hold, a subscription, oldest first. */
  live: (db: SqlExecutor, workflowId: string) =>
    db.all<TriggerSubscriptionRow>(
      `SELECT * FROM trigger_subscriptions WHERE workflow_id = $1 AND state IN ${LIVE} ORDER BY created_at, id`,
      [workflowId],
    ),

  workflowIds: async (db: SqlExecutor) =>
    (
      await db.all<{ id: string }>(
        `SELECT DISTINCT workflow_id AS id FROM trigger_subscriptions WHERE state IN ${LIVE}`,
      )
    ).map((r) => r.id),

  /** The sealed stores of an organization's enabled subscriptions of these trigger types. */
  enabledStores: async (db: SqlExecutor, organizationId: string, types: readonly string[]) => {
    if (types.length === 0) return []
    const list = types.map((_, i) => `$${i + 2}`).join(', ')
    const rows = await db.all<{ sealed_store: string }>(
      `SELECT sealed_store FROM trigger_subscriptions
       WHERE organization_id = $1 AND state = 'enabled' AND sealed_store IS NOT NULL AND trigger_type IN (${list})
       ORDER BY created_at DESC`,
      [organizationId, ...types],
    )
    return rows.map((r) => r.sealed_store)
  },

  due: (db: SqlExecutor, now: number, limit: number) =>
    db.all<TriggerSubscriptionRow>(
      `SELECT * FROM trigger_subscriptions WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= $1
       ORDER BY next_attempt_at LIMIT $2`,
      [now, limit],
    ),

  nextDue: async (db: SqlExecutor) =>
    (await db.get<{ at: number | null }>('SELECT MIN(next_attempt_at) AS at FROM trigger_subscriptions'))?.at ?? null,

  /** Takes a due row for one call, until `until`; false when another keeper took it or it changed. */
  claim: async (db: SqlExecutor, row: TriggerSubscriptionRow, until: number, at: number) =>
    (await db.run(
      `UPDATE trigger_subscriptions SET next_attempt_at = $1, updated_at = $2
       WHERE id = $3 AND state = $4 AND next_attempt_at = $5`,
      [until, at, row.id, row.state, row.next_attempt_at],
    )) === 1,

  insert: (
    db: SqlExecutor,
    r: NewTriggerInstance & {
      state: 'enabling' | 'enabled'
      sealedStore: string | null
      expiresAt: number | null
      nextAttemptAt: number | null
      at: number
    },
  ) =>
    db.run(
      `INSERT INTO trigger_subscriptions (id, organization_id, workflow_id, node_id, trigger_type, config, state,
         sealed_store, expires_at, enabled_at, attempts, next_attempt_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, $11, $12, $12)`,
      [
        ...triggerInstanceValues(r),
        r.state,
        r.sealedStore,
        r.expiresAt,
        r.state === 'enabled' ? r.at : null,
        r.nextAttemptAt,
        r.at,
      ],
    ),

  /** An onEnable (first or renewal) that succeeded on a claimed row; false when the claim was lost. */
  enabled: async (
    db: SqlExecutor,
    e: {
      claim: SubscriptionClaim
      sealedStore: string | null
      expiresAt: number | null
      next: number | null
      at: number
    },
  ) =>
    (await db.run(
      `UPDATE trigger_subscriptions SET state = 'enabled', sealed_store = $1, expires_at = $2, enabled_at = $3,
         attempts = 0, next_attempt_at = $4, last_error = NULL, updated_at = $3
       WHERE id = $5 AND state = $6 AND next_attempt_at = $7`,
      [e.sealedStore, e.expiresAt, e.at, e.next, e.claim.id, e.claim.state, e.claim.until],
    )) === 1,

  /**
   * Keeps what an onEnable made on a row that stopped being wanted meanwhile: its store, so that
   * its onDisable removes the subscription; a row that was never enabled is then disabled.
   */
  enabledWhileLeaving: (db: SqlExecutor, e: { id: string; sealedStore: string | null; at: number }) =>
    db.run(
      `UPDATE trigger_subscriptions SET sealed_store = $1, state = 'disabling', attempts = 0, next_attempt_at = $2,
         disabling_since = COALESCE(disabling_since, $2), updated_at = $2
       WHERE id = $3 AND state IN ('disabling', 'disabled')`,
      [e.sealedStore, e.at, e.id],
    ),

  /** Rows no longer wanted: onDisable is due now; a row never enabled has nothing to remove. */
  leave: async (db: SqlExecutor, row: TriggerSubscriptionRow, at: number) => {
    if (row.enabled_at === null) {
      await db.run(
        `UPDATE trigger_subscriptions SET state = 'disabled', next_attempt_at = NULL, updated_at = $1 WHERE id = $2`,
        [at, row.id],
      )
      return
    }
    await db.run(
      `UPDATE trigger_subscriptions SET state = 'disabling', attempts = 0, last_error = NULL, next_attempt_at = $1,
         disabling_since = $1, updated_at = $1
       WHERE id = $2 AND state IN ${LIVE}`,
      [at, row.id],
    )
  },

  /** onDisable succeeded: the store is dropped. */
  disabled: async (db: SqlExecutor, claim: SubscriptionClaim, at: number) =>
    (await db.run(
      `UPDATE trigger_subscriptions SET state = 'disabled', sealed_store = NULL, next_attempt_at = NULL,
         last_error = NULL, updated_at = $1
       WHERE id = $2 AND state = $3 AND next_attempt_at = $4`,
      [at, claim.id, claim.state, claim.until],
    )) === 1,

  /** A failed call: tried again at `next`, or given up (`failed`) when `next` is null. */
  retry: (db: SqlExecutor, r: { claim: SubscriptionClaim; error: string; next: number | null; at: number }) =>
    db.run(
      `UPDATE trigger_subscriptions SET attempts = attempts + 1, last_error = $1, next_attempt_at = $2, state = $3,
         updated_at = $4
       WHERE id = $5 AND state = $6 AND next_attempt_at = $7`,
      [r.error, r.next, r.next === null ? 'failed' : r.claim.state, r.at, r.claim.id, r.claim.state, r.claim.until],
    ),
}
