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

/** A run held back by flow control: the key it is stored under, and what it waits for (as stored). */
export interface HeldRun {
  id: string
  flow_key: string
  waiting_for: string
  organization_id: string
  started_at: number | string
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
      `SELECT id, flow_key, waiting_for, organization_id, started_at FROM runs
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
  /**
   * Starts a held run: running, unowned (the next worker to look takes it), counted against its
   * key (`key`: the concurrency key it passed on its way, else the one it waited under).
   */
  release: (db: SqlExecutor, runId: string, at: number, key?: string) =>
    key === undefined
      ? db.run(
          "UPDATE runs SET status = 'running', waiting_for = NULL, owner = NULL, updated_at = $1 WHERE id = $2 AND status = 'waiting' AND waiting_for IS NOT NULL",
          [at, runId],
        )
      : db.run(
          "UPDATE runs SET status = 'running', waiting_for = NULL, owner = NULL, flow_key = $1, updated_at = $2 WHERE id = $3 AND status = 'waiting' AND waiting_for IS NOT NULL",
          [key, at, runId],
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
      `SELECT id, flow_key, waiting_for, organization_id, started_at FROM runs
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

/** The fair share the least an operator can give an organization, and the most. */
export const FAIR_SHARE_RANGE = { min: 1, max: 1000 } as const

/**
 * Operators' weights for organizations when runs wait to start (`orgs set --fair-share`): an
 * organization of weight 3 starts three runs for every one of an organization of weight 1 while
 * both have runs waiting. The default is 1.
 */
export const fairShares = {
  /** The organizations whose weight is not the default. */
  async weighted(db: SqlExecutor): Promise<Map<string, number>> {
    const rows = await db.all<{ id: string; fair_share: number | string }>(
      'SELECT id, fair_share FROM organizations WHERE fair_share <> 1',
    )
    return new Map(rows.map((r) => [r.id, Number(r.fair_share)]))
  },
  /** Sets an organization's weight; false when there is no such organization. */
  async set(db: SqlExecutor, organizationId: string, weight: number): Promise<boolean> {
    return (await db.run('UPDATE organizations SET fair_share = $1 WHERE id = $2', [weight, organizationId])) > 0
  },
}

/** What a run held for its organization's turn waits for, as stored (and shown: `waitingFor`). */
const FAIRNESS_WAIT = JSON.stringify({ reason: 'fairness', key: '' })
/** The runs of an organization a release looks at, best ranked first, to take turns between its workflows. */
const RELEASE_WINDOW = 5000

/**
 * Runs an API process held back while their organization had its share of the work queue
 * (runtime/dispatch/flow-fairness.ts): status waiting, owned by nobody, ranked by when they may
 * start (`fair_rank`: admission time less 1 s per step of priority).
 */
export const fairRuns = {
  /**
   * Holds a run just admitted and not taken by any worker yet; false when it was taken meanwhile,
   * or when it counts against a concurrency key (`flow_key`): that key already bounds it, and a
   * held run would no longer count as running against its key.
   */
  async hold(db: SqlExecutor, runId: string, rank: number): Promise<boolean> {
    const changed = await db.run(
      `UPDATE runs SET status = 'waiting', waiting_for = $1, fair_rank = $2
        WHERE id = $3 AND status = 'running' AND owner IS NULL AND snapshot IS NULL AND flow_key IS NULL`,
      [FAIRNESS_WAIT, rank, runId],
    )
    return changed > 0
  },
  /** How many runs each organization has held. */
  async byOrganization(db: SqlExecutor): Promise<Map<string, number>> {
    const rows = await db.all<{ organization_id: string; n: number | string }>(
      "SELECT organization_id, COUNT(*) AS n FROM runs WHERE status = 'waiting' AND fair_rank IS NOT NULL GROUP BY organization_id",
    )
    return new Map(rows.map((r) => [r.organization_id, Number(r.n)]))
  },
  /** Locks an organization's row (Postgres), so that releases of its runs go one at a time. */
  lockOrganization: (db: SqlExecutor, organizationId: string) =>
    db.get('SELECT id FROM organizations WHERE id = $1 FOR UPDATE', [organizationId]),
  /** An organization's runs admitted and not started yet (in the work queue). */
  async inLine(db: SqlExecutor, organizationId: string): Promise<number> {
    const row = await db.get<{ n: number | string }>(
      "SELECT COUNT(*) AS n FROM runs WHERE organization_id = $1 AND status = 'running' AND snapshot IS NULL",
      [organizationId],
    )
    return Number(row?.n ?? 0)
  },
  /**
   * Starts up to `n` of an organization's held runs (running, unowned, for the work queue): its
   * workflows in turn, each workflow's runs by rank. Answers their ids.
   */
  async release(db: SqlExecutor, organizationId: string, n: number, at: number): Promise<string[]> {
    const rows = await db.all<{ id: string }>(
      `UPDATE runs SET status = 'running', waiting_for = NULL, fair_rank = NULL, owner = NULL, updated_at = $1
        WHERE id IN (
          SELECT id FROM (
            SELECT id, fair_rank, ROW_NUMBER() OVER (PARTITION BY workflow_id ORDER BY fair_rank, id) AS turn
              FROM (SELECT id, workflow_id, fair_rank FROM runs
                     WHERE organization_id = $2 AND status = 'waiting' AND fair_rank IS NOT NULL
                     ORDER BY fair_rank LIMIT ${RELEASE_WINDOW}) AS best
          ) AS turns ORDER BY turn, fair_rank, id LIMIT $3)
          AND status = 'waiting' AND fair_rank IS NOT NULL
        RETURNING id`,
      [at, organizationId, n],
    )
    return rows.map((r) => r.id)
  },
}
