/**
 * The rows beside a run: its inbox (events for its actor: resumes, timer firings, cancels), its
 * durable timers and its waits. Written by admission's neighbours (the integration router, run
 * controls) and by the journal in the run's own transactions.
 */
import type { SqlExecutor } from '../ports/store.ts'

export const runInbox = {
  add: (db: SqlExecutor, e: { id: string; runId: string; event: string; at: number }) =>
    db.run('INSERT INTO run_inbox (id, run_id, event, created_at) VALUES ($1, $2, $3, $4)', [
      e.id,
      e.runId,
      e.event,
      e.at,
    ]),
  /** An event the run's actor took. */
  consume: (db: SqlExecutor, id: string) => db.run('DELETE FROM run_inbox WHERE id = $1', [id]),
  clear: (db: SqlExecutor, runId: string) => db.run('DELETE FROM run_inbox WHERE run_id = $1', [runId]),
  /** The run's events not taken yet, oldest first. */
  of: (db: SqlExecutor, runId: string) =>
    db.all<{ id: string; event: string }>('SELECT id, event FROM run_inbox WHERE run_id = $1 ORDER BY id', [runId]),
  has: async (db: SqlExecutor, id: string) =>
    (await db.get('SELECT id FROM run_inbox WHERE id = $1', [id])) !== undefined,
}

export interface TimerRow {
  id: string
  run_id: string
  node_key: string
  kind: string
  fire_at: number
}

export const runTimers = {
  /** A due timer taken by one process: 0 when another took it first. */
  claim: (db: SqlExecutor, id: string) => db.run('DELETE FROM timers WHERE id = $1', [id]),
  due: (db: SqlExecutor, now: number, limit: number) =>
    db.all<TimerRow>('SELECT * FROM timers WHERE fire_at <= $1 ORDER BY fire_at LIMIT $2', [now, limit]),
  nextAt: async (db: SqlExecutor) =>
    (await db.get<{ at: number | null }>('SELECT MIN(fire_at) AS at FROM timers'))?.at ?? null,
  add: (db: SqlExecutor, t: { id: string; runId: string; nodeKey: string; kind: string; fireAt: number }) =>
    db.run('INSERT INTO timers (id, run_id, node_key, kind, fire_at) VALUES ($1, $2, $3, $4, $5)', [
      t.id,
      t.runId,
      t.nodeKey,
      t.kind,
      t.fireAt,
    ]),
}

export const runWaits = {
  add: (
    db: SqlExecutor,
    w: {
      id: string
      organizationId: string
      workflowId: string
      runId: string
      nodeId: string | null
      nodeKey: string
      triggerType: string | null
      match: string | null
      at: number
      expiresAt: number | null
    },
  ) =>
    db.run(
      'INSERT INTO waits (id, organization_id, workflow_id, run_id, node_id, node_key, trigger_type, match, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
      [w.id, w.organizationId, w.workflowId, w.runId, w.nodeId, w.nodeKey, w.triggerType, w.match, w.at, w.expiresAt],
    ),
  ofRun: <W>(db: SqlExecutor, organizationId: string, runId: string) =>
    db.all<W>('SELECT * FROM waits WHERE organization_id = $1 AND run_id = $2 ORDER BY id', [organizationId, runId]),
  ofTriggerType: <W>(db: SqlExecutor, organizationId: string, triggerType: string) =>
    db.all<W>('SELECT * FROM waits WHERE organization_id = $1 AND trigger_type = $2 ORDER BY id', [
      organizationId,
      triggerType,
    ]),
  /** A wait claimed by the event that resumes it: 0 when another took it first. */
  claim: (db: SqlExecutor, id: string) => db.run('DELETE FROM waits WHERE id = $1', [id]),
}

/** Variables with a `persist` lifetime: kept per workflow from one run to the next. */
export const workflowVariables = {
  of: (db: SqlExecutor, workflowId: string) =>
    db.all<{ name: string; value: string }>('SELECT name, value FROM workflow_variables WHERE workflow_id = $1', [
      workflowId,
    ]),
  set: (db: SqlExecutor, v: { workflowId: string; name: string; value: string; at: number }) =>
    db.run(
      `INSERT INTO workflow_variables (workflow_id, name, value, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workflow_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      [v.workflowId, v.name, v.value, v.at],
    ),
}

/** The timers and waits of one node instance, or of the whole run: it left the wait, or ended. */
export async function clearWaiting(db: SqlExecutor, runId: string, nodeKey?: string): Promise<void> {
  if (nodeKey === undefined) {
    await db.run('DELETE FROM timers WHERE run_id = $1', [runId])
    await db.run('DELETE FROM waits WHERE run_id = $1', [runId])
    return
  }
  await db.run('DELETE FROM timers WHERE run_id = $1 AND node_key = $2', [runId, nodeKey])
  await db.run('DELETE FROM waits WHERE run_id = $1 AND node_key = $2', [runId, nodeKey])
}
