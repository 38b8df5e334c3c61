/**
 * Pruning finished runs: which runs are due, deleting a batch of them with everything that
 * belongs to them, and the daily roll-up that keeps them counted. Portable SQL; a batch is
 * one short transaction.
 */
import { TERMINAL_SQL } from '../domain/run-lifecycle.ts'
import type { SqlExecutor, SqlValue } from '../ports/store.ts'

const DAY_MS = 86_400_000

/** The start (UTC) of the day a time falls in. */
export const dayOf = (at: number): number => Math.floor(at / DAY_MS) * DAY_MS

/** Ids padded to `size` by repeating the last one, so each statement is prepared once. */
function inList(ids: readonly string[], size: number, first = 1): { sql: string; params: string[] } {
  const params = Array.from({ length: size }, (_, i) => ids[Math.min(i, ids.length - 1)])
  return { sql: params.map((_, i) => `$${first + i}`).join(', '), params }
}

// A run whose execution-hook deliveries are still being tried is kept until they finish.
const NO_LIVE_DELIVERY =
  'NOT EXISTS (SELECT 1 FROM hook_deliveries d WHERE d.run_id = runs.id AND d.due_at IS NOT NULL)'

export interface PrunedRun {
  organization_id: string
  workflow_id: string
  status: string
  started_at: number
  finished_at: number
}

export const retention = {
  /** Organizations with their own retention (NULL: the installation's). */
  organizations(db: SqlExecutor) {
    return db.all<{ id: string; run_retention_ms: number | null }>(
      'SELECT id, run_retention_ms FROM organizations ORDER BY id',
    )
  },

  /**
   * Workflows whose settings carry a retention: the live version's, or the latest's when none is
   * live. The LIKE reads only the content of workflows that set one (null is written `null`).
   */
  workflowRetentions(db: SqlExecutor) {
    return db.all<{ id: string; organization_id: string; content: string }>(
      `SELECT w.id, w.organization_id, v.content FROM workflows w
         JOIN workflow_versions v ON v.workflow_id = w.id AND v.version = COALESCE(w.live_version, w.latest_version)
       WHERE v.content LIKE '%"runRetention":"%'`,
    )
  },

  /** Finished runs of an organization that finished before `before`, oldest first. */
  dueInOrganization(db: SqlExecutor, organizationId: string, before: number, limit: number) {
    return db.all<{ id: string }>(
      `SELECT id FROM runs WHERE organization_id = $1 AND finished_at < $2 AND ${TERMINAL_SQL} AND ${NO_LIVE_DELIVERY}
       ORDER BY finished_at LIMIT $3`,
      [organizationId, before, limit],
    )
  },

  /** The same for one workflow; it reads the status-counts index by start time (a run starts before it finishes). */
  dueInWorkflow(db: SqlExecutor, organizationId: string, workflowId: string, before: number, limit: number) {
    return db.all<{ id: string }>(
      `SELECT id FROM runs WHERE organization_id = $1 AND workflow_id = $2 AND ${TERMINAL_SQL} AND started_at < $3
         AND finished_at < $3 AND ${NO_LIVE_DELIVERY}
       LIMIT $4`,
      [organizationId, workflowId, before, limit],
    )
  },

  /**
   * Deletes finished runs with their journal, inbox, timers, waits and hook deliveries, and adds
   * them to the daily roll-up, in the caller's transaction. Only the runs this statement deleted
   * are counted, so two processes pruning at once never count a run twice.
   */
  async deleteRuns(tx: SqlExecutor, ids: readonly string[], batchSize: number): Promise<number> {
    if (ids.length === 0) return 0
    const list = inList(ids, batchSize)
    const deleted = await tx.all<PrunedRun>(
      `DELETE FROM runs WHERE id IN (${list.sql}) AND ${TERMINAL_SQL}
       RETURNING organization_id, workflow_id, status, started_at, finished_at`,
      list.params,
    )
    if (deleted.length === 0) return 0
    for (const table of ['journal', 'hook_deliveries', 'run_inbox', 'timers', 'waits']) {
      await tx.run(`DELETE FROM ${table} WHERE run_id IN (${list.sql})`, list.params)
    }
    const counts = new Map<string, { key: SqlValue[]; runs: number }>()
    for (const r of deleted) {
      const key = [
        r.organization_id,
        r.workflow_id,
        r.status,
        dayOf(r.started_at),
        dayOf(r.finished_at ?? r.started_at),
      ]
      const id = key.join('\u0000')
      const entry = counts.get(id) ?? counts.set(id, { key, runs: 0 }).get(id)!
      entry.runs++
    }
    for (const { key, runs } of counts.values()) {
      await tx.run(
        `INSERT INTO run_rollups (organization_id, workflow_id, status, started_day, finished_day, runs) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (organization_id, workflow_id, status, started_day, finished_day) DO UPDATE SET runs = run_rollups.runs + excluded.runs`,
        [...key, runs],
      )
    }
    return deleted.length
  },

  /** Deletes up to `limit` stored webhook events of an organization received before `before`. */
  deleteWebhookEvents(tx: SqlExecutor, organizationId: string, before: number, limit: number) {
    return tx.run(
      'DELETE FROM webhook_events WHERE id IN (SELECT id FROM webhook_events WHERE organization_id = $1 AND received_at < $2 LIMIT $3)',
      [organizationId, before, limit],
    )
  },

  /** Per-caller public run counters of days before `day` (YYYY-MM-DD) no longer limit anything. */
  deletePublicUsageBefore(tx: SqlExecutor, day: string) {
    return tx.run('DELETE FROM public_run_usage WHERE day < $1', [day])
  },

  /** Pruned runs by status: since the UTC day of `since` (status counts). */
  rolledUpByStatus(
    db: SqlExecutor,
    organizationId: string,
    filter: { workflowId?: string; since?: number; until?: number },
  ) {
    const where = ['organization_id = $1']
    const params: SqlValue[] = [organizationId]
    if (filter.workflowId) {
      params.push(filter.workflowId)
      where.push(`workflow_id = $${params.length}`)
    }
    if (filter.since !== undefined) {
      params.push(dayOf(filter.since))
      where.push(`started_day >= $${params.length}`)
    }
    if (filter.until !== undefined) {
      // Whole UTC days: a day the range ends inside counts.
      params.push(dayOf(filter.until - 1))
      where.push(`started_day <= $${params.length}`)
    }
    return db.all<{ status: string; n: number }>(
      `SELECT status, SUM(runs) AS n FROM run_rollups WHERE ${where.join(' AND ')} GROUP BY status`,
      params,
    )
  },

  /** Pruned runs by status that finished on the UTC days from `from` to `to` (failure rate). */
  rolledUpFinishedBetween(db: SqlExecutor, organizationId: string, from: number, to: number) {
    return db.all<{ status: string; n: number }>(
      'SELECT status, SUM(runs) AS n FROM run_rollups WHERE organization_id = $1 AND finished_day >= $2 AND finished_day <= $3 GROUP BY status',
      [organizationId, dayOf(from), dayOf(to)],
    )
  },
}
