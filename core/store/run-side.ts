/**
 * The rows beside a run: its inbox (events for its actor: resumes, timer firings, cancels), its
 * durable timers and its waits. Written by admission's neighbours (the integration router, run
 * controls) and by the journal in the run's own transactions.
 */
import type { SqlExecutor } from '../ports/store.ts'

export const runInbox = {
  add: (db: SqlExecutor, e: { id: string; runId: string; event: string; at: number }) =>
    db.run('INSERT INTO run_inbox (id, run_id, event, created_at) VALUES ($1, $2, $3, $4)', [e.id, e.runId, e.event, e.at]),
  /** An event the run's actor took. */
  consume: (db: SqlExecutor, id: string) => db.run('DELETE FROM run_inbox WHERE id = $1', [id]),
  clear: (db: SqlExecutor, runId: string) => db.run('DELETE FROM run_inbox WHERE run_id = $1', [runId]),
}

export const runTimers = {
  add: (db: SqlExecutor, t: { id: string; runId: string; nodeKey: string; kind: string; fireAt: number }) =>
    db.run('INSERT INTO timers (id, run_id, node_key, kind, fire_at) VALUES ($1, $2, $3, $4, $5)', [t.id, t.runId, t.nodeKey, t.kind, t.fireAt]),
}

export const runWaits = {
  add: (db: SqlExecutor, w: { id: string; organizationId: string; workflowId: string; runId: string; nodeId: string | null; nodeKey: string; triggerType: string | null; match: string | null; at: number; expiresAt: number | null }) =>
    db.run(
      'INSERT INTO waits (id, organization_id, workflow_id, run_id, node_id, node_key, trigger_type, match, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
      [w.id, w.organizationId, w.workflowId, w.runId, w.nodeId, w.nodeKey, w.triggerType, w.match, w.at, w.expiresAt],
    ),
  /** A wait claimed by the event that resumes it: 0 when another took it first. */
  claim: (db: SqlExecutor, id: string) => db.run('DELETE FROM waits WHERE id = $1', [id]),
}

/** Variables with a `persist` lifetime: kept per workflow from one run to the next. */
export const workflowVariables = {
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
