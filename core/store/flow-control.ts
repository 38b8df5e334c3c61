/**
 * The store's side of flow control: rate windows (flow_hits), throttle buckets (flow_buckets), and
 * the runs a key counts or holds (runs.flow_key, runs.waiting_for).
 */
import type { SqlExecutor } from '../ports/store.ts'

export const flowHits = {
  /** The admissions of a key since `since` (exclusive): how many, and the oldest one's time. */
  async window(db: SqlExecutor, workflowId: string, key: string, since: number) {
    const row = await db.get<{ n: number | string; first: number | string | null }>(
      'SELECT COUNT(*) AS n, MIN(at) AS first FROM flow_hits WHERE workflow_id = $1 AND flow_key = $2 AND at > $3',
      [workflowId, key, since],
    )
    return { count: Number(row?.n ?? 0), first: row?.first == null ? null : Number(row.first) }
  },
  /** Counts one admission at `at`, dropping the key's hits that left the window (at or before `since`). */
  async add(db: SqlExecutor, workflowId: string, key: string, at: number, since: number) {
    await db.run('DELETE FROM flow_hits WHERE workflow_id = $1 AND flow_key = $2 AND at <= $3', [
      workflowId,
      key,
      since,
    ])
    await db.run('INSERT INTO flow_hits (workflow_id, flow_key, at) VALUES ($1, $2, $3)', [workflowId, key, at])
  },
}

/** A run held back by a concurrency limit: its key, and the limit it waits under. */
export interface HeldRun {
  id: string
  flow_key: string
  waiting_for: string
}

export const flowRuns = {
  /** A key's runs in execution (running, or waiting inside the run) and its runs held back. */
  async counts(db: SqlExecutor, workflowId: string, key: string): Promise<{ running: number; held: number }> {
    const row = await db.get<{ running: number | string | null; held: number | string | null }>(
      `SELECT SUM(CASE WHEN waiting_for IS NULL THEN 1 ELSE 0 END) AS running,
              SUM(CASE WHEN waiting_for IS NULL THEN 0 ELSE 1 END) AS held
         FROM runs WHERE workflow_id = $1 AND flow_key = $2 AND status IN ('running', 'waiting')`,
      [workflowId, key],
    )
    return { running: Number(row?.running ?? 0), held: Number(row?.held ?? 0) }
  },
  /** Counts a run against its concurrency key until it ends. */
  mark: (db: SqlExecutor, runId: string, key: string) =>
    db.run('UPDATE runs SET flow_key = $1 WHERE id = $2', [key, runId]),
  /** Holds a run just admitted: waiting, owned by no worker, until a release starts it. */
  hold: (db: SqlExecutor, runId: string, key: string, waitingFor: string) =>
    db.run("UPDATE runs SET status = 'waiting', owner = NULL, flow_key = $1, waiting_for = $2 WHERE id = $3", [
      key,
      waitingFor,
      runId,
    ]),
  /** A key's runs in execution (not held), oldest first. */
  runningOf: (db: SqlExecutor, workflowId: string, key: string) =>
    db.all<{ id: string }>(
      `SELECT id FROM runs WHERE workflow_id = $1 AND flow_key = $2 AND status IN ('running', 'waiting')
          AND waiting_for IS NULL ORDER BY started_at, id`,
      [workflowId, key],
    ),
  /** A workflow's held runs, oldest first. */
  heldOf: (db: SqlExecutor, workflowId: string) =>
    db.all<HeldRun>(
      `SELECT id, flow_key, waiting_for FROM runs
        WHERE workflow_id = $1 AND flow_key IS NOT NULL AND status = 'waiting' AND waiting_for IS NOT NULL
        ORDER BY started_at, id`,
      [workflowId],
    ),
  /** The workflows with held runs (a sweep's list). */
  workflowsHolding: (db: SqlExecutor) =>
    db.all<{ workflow_id: string }>(
      "SELECT DISTINCT workflow_id FROM runs WHERE status = 'waiting' AND flow_key IS NOT NULL AND waiting_for IS NOT NULL",
    ),
  /** Whether a run is still held (not started by a release meanwhile). */
  isHeld: async (db: SqlExecutor, runId: string) =>
    (await db.get("SELECT 1 AS held FROM runs WHERE id = $1 AND status = 'waiting' AND waiting_for IS NOT NULL", [
      runId,
    ])) !== undefined,
  /** Starts a held run: running, unowned (the next worker to look takes it), counted against its key. */
  release: (db: SqlExecutor, runId: string, at: number) =>
    db.run(
      "UPDATE runs SET status = 'running', waiting_for = NULL, owner = NULL, updated_at = $1 WHERE id = $2 AND status = 'waiting' AND waiting_for IS NOT NULL",
      [at, runId],
    ),
}

/**
 * Throttle buckets, one per key, kept as the time the bucket is next empty of one start (the
 * generic cell rate algorithm's theoretical arrival time): a token bucket in one number.
 */
export const flowBuckets = {
  async get(db: SqlExecutor, workflowId: string, key: string): Promise<number | null> {
    const row = await db.get<{ tat: number | string }>(
      'SELECT tat FROM flow_buckets WHERE workflow_id = $1 AND flow_key = $2',
      [workflowId, key],
    )
    return row ? Number(row.tat) : null
  },
  set: (db: SqlExecutor, workflowId: string, key: string, tat: number) =>
    db.run(
      `INSERT INTO flow_buckets (workflow_id, flow_key, tat) VALUES ($1, $2, $3)
       ON CONFLICT (workflow_id, flow_key) DO UPDATE SET tat = excluded.tat`,
      [workflowId, key, tat],
    ),
}

/** The pending run of a debounce key, if one waits. */
export const flowDebounce = {
  pendingOf: (db: SqlExecutor, workflowId: string, key: string) =>
    db.get<HeldRun>(
      `SELECT id, flow_key, waiting_for FROM runs
        WHERE workflow_id = $1 AND flow_key = $2 AND status = 'waiting' AND waiting_for IS NOT NULL
        ORDER BY started_at, id LIMIT 1`,
      [workflowId, key],
    ),
  /** The pending run takes a newer event's data, and the time it waits until. */
  absorb: (db: SqlExecutor, runId: string, triggerEvent: string, waitingFor: string, at: number) =>
    db.run(
      "UPDATE runs SET trigger_event = $1, waiting_for = $2, updated_at = $3 WHERE id = $4 AND status = 'waiting'",
      [triggerEvent, waitingFor, at, runId],
    ),
}
