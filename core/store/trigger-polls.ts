/**
 * Poll rows: one per polling trigger node of a live workflow version. The poller (runtime/polls)
 * leases a due row, calls the plugin outside any transaction, then commits the runs it starts
 * together with the row's new cursor and seen keys, only while it still holds the row's fence.
 */
import type { SqlExecutor } from '../ports/store.ts'
import { type NewTriggerInstance, type TriggerInstanceColumns, triggerInstanceValues } from './trigger-instances.ts'

export interface TriggerPollRow extends TriggerInstanceColumns {
  /** The live version the row was made for. */
  version: number
  /** 1 while the live version is active and the workflow not archived. */
  active: number
  /** What the plugin's last poll returned as its cursor (JSON), or null. */
  cursor: string | null
  /** The keys of the latest items seen, newest last (a JSON array). */
  seen: string
  /** 0 until the first poll has recorded the items already there. */
  primed: number
  next_poll_at: number
  lease_owner: string | null
  lease_until: number | null
  /** Grows with every lease: a poll's result is committed only with the fence it leased. */
  fence: number
  last_polled_at: number | null
  /** Items the last successful poll returned, and runs it started. */
  last_items: number
  last_runs: number
  last_error: string | null
  /** Failed polls in a row (the backoff's exponent). */
  failures: number
  created_at: number
  updated_at: number
}

/** A leased row: its fence at the time of the lease. */
export interface PollLease {
  id: string
  fence: number
}

export const triggerPolls = {
  byWorkflow: (db: SqlExecutor, workflowId: string) =>
    db.all<TriggerPollRow>('SELECT * FROM trigger_polls WHERE workflow_id = $1 ORDER BY node_id', [workflowId]),

  get: (db: SqlExecutor, id: string) => db.get<TriggerPollRow>('SELECT * FROM trigger_polls WHERE id = $1', [id]),

  byNode: (db: SqlExecutor, workflowId: string, nodeId: string) =>
    db.get<TriggerPollRow>('SELECT * FROM trigger_polls WHERE workflow_id = $1 AND node_id = $2', [workflowId, nodeId]),

  workflowIds: async (db: SqlExecutor) =>
    (await db.all<{ id: string }>('SELECT DISTINCT workflow_id AS id FROM trigger_polls')).map((r) => r.id),

  /** Rows due at `now` that no live lease holds, soonest first. */
  due: (db: SqlExecutor, now: number, limit: number) =>
    db.all<TriggerPollRow>(
      `SELECT * FROM trigger_polls WHERE active = 1 AND next_poll_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
       ORDER BY next_poll_at LIMIT $2`,
      [now, limit],
    ),

  nextDue: async (db: SqlExecutor) =>
    (await db.get<{ at: number | null }>('SELECT MIN(next_poll_at) AS at FROM trigger_polls WHERE active = 1'))?.at ??
    null,

  /** Takes the lease of a due row with a new fence; undefined when another poller holds it or it stopped. */
  lease: (db: SqlExecutor, l: { id: string; owner: string; now: number; until: number }) =>
    db.get<{ fence: number }>(
      `UPDATE trigger_polls SET lease_owner = $1, lease_until = $2, fence = fence + 1, updated_at = $3
       WHERE id = $4 AND active = 1 AND next_poll_at <= $3 AND (lease_until IS NULL OR lease_until < $3)
       RETURNING fence`,
      [l.owner, l.until, l.now, l.id],
    ),

  /**
   * Locks the leased row for the commit of its poll and reads it; undefined when the lease was
   * lost (its fence moved on: another poller took the row after this lease expired, or the row
   * was made again for a changed trigger).
   */
  holding: async (db: SqlExecutor, lease: PollLease, at: number) => {
    const changed = await db.run('UPDATE trigger_polls SET updated_at = $1 WHERE id = $2 AND fence = $3', [
      at,
      lease.id,
      lease.fence,
    ])
    return changed === 0 ? undefined : triggerPolls.get(db, lease.id)
  },

  /** The committed result of a poll: the new cursor and seen keys, the lease released. */
  polled: (
    db: SqlExecutor,
    p: { id: string; cursor: string | null; seen: string; items: number; runs: number; next: number; at: number },
  ) =>
    db.run(
      `UPDATE trigger_polls SET cursor = $1, seen = $2, primed = 1, last_items = $3, last_runs = $4, next_poll_at = $5,
         last_polled_at = $6, last_error = NULL, failures = 0, lease_owner = NULL, lease_until = NULL, updated_at = $6
       WHERE id = $7`,
      [p.cursor, p.seen, p.items, p.runs, p.next, p.at, p.id],
    ),

  /** A failed poll: the error kept, the next poll backed off, the lease released (while still held). */
  failed: (db: SqlExecutor, f: { lease: PollLease; error: string; next: number; at: number }) =>
    db.run(
      `UPDATE trigger_polls SET last_error = $1, failures = failures + 1, next_poll_at = $2, last_polled_at = $3,
         lease_owner = NULL, lease_until = NULL, updated_at = $3
       WHERE id = $4 AND fence = $5`,
      [f.error, f.next, f.at, f.lease.id, f.lease.fence],
    ),

  insert: (
    db: SqlExecutor,
    r: NewTriggerInstance & { version: number; active: boolean; nextPollAt: number; at: number },
  ) =>
    db.run(
      `INSERT INTO trigger_polls (id, organization_id, workflow_id, node_id, trigger_type, config, version, active, cursor,
         seen, primed, next_poll_at, fence, last_items, last_runs, failures, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, '[]', 0, $9, 0, 0, 0, 0, $10, $10)`,
      [...triggerInstanceValues(r), r.version, r.active ? 1 : 0, r.nextPollAt, r.at],
    ),

  /** The same trigger in another live version, or the workflow's state changed: cursor and seen keys stay. */
  carry: (
    db: SqlExecutor,
    c: { id: string; version: number; active: boolean; nextPollAt: number | null; at: number },
  ) =>
    db.run(
      `UPDATE trigger_polls SET version = $1, active = $2, next_poll_at = COALESCE($3, next_poll_at), updated_at = $4
       WHERE id = $5`,
      [c.version, c.active ? 1 : 0, c.nextPollAt, c.at, c.id],
    ),

  /** Forgets the cursor and seen keys: the next poll records what is there, as a first poll does. */
  reset: (db: SqlExecutor, id: string, at: number) =>
    db.run(
      `UPDATE trigger_polls SET cursor = NULL, seen = '[]', primed = 0, failures = 0, last_error = NULL, next_poll_at = $1,
         fence = fence + 1, lease_owner = NULL, lease_until = NULL, updated_at = $1
       WHERE id = $2`,
      [at, id],
    ),

  /** Removing a row ends its lease: a poll in flight finds the fence gone and commits nothing. */
  remove: (db: SqlExecutor, id: string) => db.run('DELETE FROM trigger_polls WHERE id = $1', [id]),
}
