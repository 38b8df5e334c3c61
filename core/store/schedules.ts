/**
 * Schedule rows: one per trigger node of a live workflow version whose trigger fires on a
 * schedule. The scheduler (runtime/schedules) keeps them; the schedule endpoint reads them.
 */
import type { SqlExecutor } from '../ports/store.ts'

export interface ScheduleRow {
  id: string
  organization_id: string
  workflow_id: string
  trigger_node_id: string
  trigger_type: string
  /** The trigger node's payload, as JSON. */
  config: string
  /** The live version the row was made for. */
  version: number
  /** 1 while the live version is active and the workflow not archived. */
  active: number
  /** The tick to fire next; null when the rule has no occurrence left. */
  next_fire_at: number | null
  /** The tick (its scheduled time) of the last run the scheduler dispatched. */
  last_fired_at: number | null
  last_run_id: string | null
  /** `triggered`, or why the dispatcher skipped the tick (`cooldown`, `paused`, …). */
  last_outcome: string | null
  /** Ticks missed while no scheduler ran that started no run. */
  skipped_ticks: number
  last_skipped_at: number | null
  created_at: number
  updated_at: number
}

export const schedules = {
  byWorkflow(db: SqlExecutor, workflowId: string): Promise<ScheduleRow[]> {
    return db.all<ScheduleRow>('SELECT * FROM schedules WHERE workflow_id = $1 ORDER BY trigger_node_id', [workflowId])
  },

  due(db: SqlExecutor, now: number, limit: number): Promise<ScheduleRow[]> {
    return db.all<ScheduleRow>(
      'SELECT * FROM schedules WHERE active = 1 AND next_fire_at <= $1 ORDER BY next_fire_at LIMIT $2',
      [now, limit],
    )
  },

  /** Adds a workflow's row for a trigger node; nothing when it has one already. */
  insert: (
    db: SqlExecutor,
    r: {
      id: string
      organizationId: string
      workflowId: string
      triggerNodeId: string
      triggerType: string
      config: string
      version: number
      active: boolean
      nextFireAt: number | null
      at: number
    },
  ) =>
    db.run(
      `INSERT INTO schedules (id, organization_id, workflow_id, trigger_node_id, trigger_type, config, version, active, next_fire_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) ON CONFLICT (workflow_id, trigger_node_id) DO NOTHING`,
      [
        r.id,
        r.organizationId,
        r.workflowId,
        r.triggerNodeId,
        r.triggerType,
        r.config,
        r.version,
        r.active ? 1 : 0,
        r.nextFireAt,
        r.at,
      ],
    ),
  /** A row made again for the workflow's live version: its trigger, configuration, state and next tick. */
  update: (
    db: SqlExecutor,
    r: {
      id: string
      triggerType: string
      config: string
      version: number
      active: boolean
      nextFireAt: number | null
      at: number
    },
  ) =>
    db.run(
      'UPDATE schedules SET trigger_type = $1, config = $2, version = $3, active = $4, next_fire_at = $5, updated_at = $6 WHERE id = $7',
      [r.triggerType, r.config, r.version, r.active ? 1 : 0, r.nextFireAt, r.at, r.id],
    ),
  /**
   * Claims a due tick: moves the row's next tick on from `due` (and counts the ticks skipped)
   * while it is still active and still due at `due`; 0 when another scheduler claimed it first.
   */
  claimTick: (
    db: SqlExecutor,
    c: { id: string; due: number | null; next: number | null; skipped: number; at: number },
  ) =>
    db.run(
      `UPDATE schedules SET next_fire_at = $1, skipped_ticks = skipped_ticks + $2, last_skipped_at = COALESCE($3, last_skipped_at), updated_at = $4
       WHERE id = $5 AND next_fire_at = $6 AND active = 1`,
      [c.next, c.skipped, c.skipped > 0 ? c.at : null, c.at, c.id, c.due],
    ),
  remove: (db: SqlExecutor, id: string) => db.run('DELETE FROM schedules WHERE id = $1', [id]),
  workflowIds: async (db: SqlExecutor) =>
    (await db.all<{ id: string }>('SELECT DISTINCT workflow_id AS id FROM schedules')).map((r) => r.id),
  /** A schedule whose rule no longer reads stops. */
  markInvalid: (db: SqlExecutor, id: string, at: number) =>
    db.run("UPDATE schedules SET active = 0, last_outcome = 'invalid', updated_at = $1 WHERE id = $2", [at, id]),
  recordTick: (db: SqlExecutor, t: { id: string; firedAt: number; runId: string | null; outcome: string }) =>
    db.run('UPDATE schedules SET last_fired_at = $1, last_run_id = $2, last_outcome = $3 WHERE id = $4', [
      t.firedAt,
      t.runId,
      t.outcome,
      t.id,
    ]),

  async nextDue(db: SqlExecutor): Promise<number | null> {
    const row = await db.get<{ at: number | null }>('SELECT MIN(next_fire_at) AS at FROM schedules WHERE active = 1')
    return row?.at ?? null
  },
}
