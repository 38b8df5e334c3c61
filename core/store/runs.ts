/** Run rows: the record, lists and counts, and the insert of a run being admitted (the engine's journal writes the rest). */
import type { RunStatus } from '../domain/run.ts'
import { ACTIVE_SQL, type TerminalStatus } from '../domain/run-lifecycle.ts'
import type { PageRequest } from '../domain/common.ts'
import type { Dialect, SqlExecutor, Statement } from '../ports/store.ts'

export interface RunRow {
  id: string
  organization_id: string
  workflow_id: string
  workflow_version: number
  status: string
  trigger_type: string
  trigger_node_id: string
  triggered_by: string
  automatic: number
  live: number
  /** 1 for a test run (absent on rows read without it). */
  test?: number
  event_id: string | null
  idempotency_key: string | null
  retry_of: string | null
  definition_hash: string
  trigger_event: string
  prop_values: string
  vars: string
  seed: string | null
  snapshot: string | null
  last_seq: number
  error: string | null
  started_at: number
  finished_at: number | null
  updated_at: number
  owner: string | null
  traceparent?: string | null
  trace_caller?: string | null
  /** What a run held back by flow control waits for (JSON), else null (absent on rows read without it). */
  waiting_for?: string | null
}

/** A run's state as its journal writes it: status, snapshot, sequence, variables, and its end. */
export interface RunStateColumns {
  status: string
  snapshot: string
  lastSeq: number
  at: number
  vars: string
  finishedAt: number | null
  error: string | null
  owner: string | null
}

/**
 * What admission stores of a new run: status `running`, sequence 1, no snapshot yet; or, for a
 * run that ended at admission, the state its journal wrote (`state`).
 */
export interface NewRun {
  id: string
  organizationId: string
  workflowId: string
  workflowVersion: number
  triggerType: string
  triggerNodeId: string
  triggeredBy: string
  automatic: boolean
  live: boolean
  /** A test run of the draft: left out of production views. */
  test?: boolean
  eventId: string
  idempotencyKey: string | null
  retryOf: string | null
  definitionHash: string
  /** Already JSON: the trigger event, prop values, variables and seeded node results (or null). */
  triggerEvent: string
  propValues: string
  vars: string
  seed: string | null
  startedAt: number
  /** The worker that will execute it, when the admitting process does. */
  owner: string | null
  /** The run's W3C span context, and the caller's it continues (null: a trace of its own). */
  traceparent?: string | null
  traceCaller?: string | null
  state?: RunStateColumns
}

const INSERT_RUN_SQL = `INSERT INTO runs (id, organization_id, workflow_id, workflow_version, status, trigger_type, trigger_node_id, triggered_by, automatic, live,
    event_id, idempotency_key, retry_of, definition_hash, trigger_event, prop_values, vars, seed, snapshot, last_seq, error, started_at, finished_at, updated_at, owner,
    traceparent, trace_caller, test)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28)`

const SAVE_STATE_SQL = `UPDATE runs SET status = $1, snapshot = $2, last_seq = $3, updated_at = $4, vars = $5,
    finished_at = COALESCE(finished_at, $6), error = COALESCE($7, error), owner = $8
  WHERE id = $9 AND (owner = $10 OR owner IS NULL)`

const SUMMARY_COLUMNS =
  'id, organization_id, workflow_id, workflow_version, status, trigger_type, trigger_node_id, triggered_by, automatic, live, test, event_id, retry_of, definition_hash, prop_values, vars, error, started_at, finished_at, updated_at, last_seq, waiting_for'

/** Which runs a list, a count or a bulk action is about: a workflow, a status, a start-time range [since, until). */
export interface RunFilter {
  workflowId?: string
  status?: string
  since?: number
  until?: number
  /** Test runs only (true), production runs only (false); absent: both. */
  test?: boolean
}

function filtered(organizationId: string, filter: RunFilter): { where: string[]; params: (string | number)[] } {
  const where = ['organization_id = $1']
  const params: (string | number)[] = [organizationId]
  const add = (clause: string, value: string | number) => {
    params.push(value)
    where.push(clause.replace('?', `$${params.length}`))
  }
  if (filter.workflowId) add('workflow_id = ?', filter.workflowId)
  if (filter.status) add('status = ?', filter.status)
  if (filter.since !== undefined) add('started_at >= ?', filter.since)
  if (filter.until !== undefined) add('started_at < ?', filter.until)
  if (filter.test !== undefined) add('test = ?', filter.test ? 1 : 0)
  return { where, params }
}

export const runs = {
  /** The few columns the run controls and streams read. */
  status: (db: SqlExecutor, runId: string) =>
    db.get<{ status: RunStatus }>('SELECT status FROM runs WHERE id = $1', [runId]),
  /** A run's status, and what it waits for when flow control holds it. */
  statusIn: (db: SqlExecutor, organizationId: string, runId: string) =>
    db.get<{ status: RunStatus; waiting_for: string | null }>(
      'SELECT status, waiting_for FROM runs WHERE organization_id = $1 AND id = $2',
      [organizationId, runId],
    ),
  stateIn: (db: SqlExecutor, organizationId: string, runId: string) =>
    db.get<{ status: RunStatus; snapshot: string | null }>(
      'SELECT status, snapshot FROM runs WHERE organization_id = $1 AND id = $2',
      [organizationId, runId],
    ),
  /** Whose a run id is, whichever organization (answers must not tell others it exists). */
  ownerOf: (db: SqlExecutor, runId: string) =>
    db.get<{ id: string; organization_id: string; workflow_id: string; last_seq: number; status: RunStatus }>(
      'SELECT id, organization_id, workflow_id, last_seq, status FROM runs WHERE id = $1',
      [runId],
    ),
  existsIn: async (db: SqlExecutor, organizationId: string, runId: string) =>
    (await db.get('SELECT 1 AS one FROM runs WHERE id = $1 AND organization_id = $2', [runId, organizationId])) !==
    undefined,
  byIdempotencyKey: (db: SqlExecutor, workflowId: string, key: string) =>
    db.get<{ id: string }>('SELECT id FROM runs WHERE workflow_id = $1 AND idempotency_key = $2', [workflowId, key]),
  /**
   * Ends a run that has not ended, outside its actor (endRun of runtime/engine/run-end.ts): its
   * status, end, sequence, and the error and owner when given; 0 when it had ended.
   */
  end: (
    db: SqlExecutor,
    r: { runId: string; status: TerminalStatus; at: number; seq: number; error: string | null; owner: string | null },
  ) =>
    db.run(
      `UPDATE runs SET status = $1, error = COALESCE($2, error), finished_at = $3, updated_at = $3, last_seq = $4, owner = COALESCE($5, owner) WHERE id = $6 AND ${ACTIVE_SQL}`,
      [r.status, r.error, r.at, r.seq, r.owner, r.runId],
    ),
  /**
   * The journal's write of a run's state: status, snapshot, sequence, variables, and its end. The
   * run must still be this worker's (or no one's): 0 rows changed means another worker owns it.
   * A statement, run with the run's journal row (journal.insertWith).
   */
  saveStateStatement: (s: RunStateColumns & { runId: string; workerId: string }): Statement => ({
    sql: SAVE_STATE_SQL,
    params: [s.status, s.snapshot, s.lastSeq, s.at, s.vars, s.finishedAt, s.error, s.owner, s.runId, s.workerId],
  }),
  /** Stores a run being admitted: a statement, run with its first journal row (journal.insertWith). */
  insertStatement(r: NewRun): Statement {
    const s = r.state
    return {
      sql: INSERT_RUN_SQL,
      params: [
        r.id,
        r.organizationId,
        r.workflowId,
        r.workflowVersion,
        s?.status ?? 'running',
        r.triggerType,
        r.triggerNodeId,
        r.triggeredBy,
        r.automatic ? 1 : 0,
        r.live ? 1 : 0,
        r.eventId,
        r.idempotencyKey,
        r.retryOf,
        r.definitionHash,
        r.triggerEvent,
        r.propValues,
        s?.vars ?? r.vars,
        r.seed,
        s?.snapshot ?? null,
        s?.lastSeq ?? 1,
        s?.error ?? null,
        r.startedAt,
        s?.finishedAt ?? null,
        s?.at ?? r.startedAt,
        s ? s.owner : r.owner,
        r.traceparent ?? null,
        r.traceCaller ?? null,
        r.test ? 1 : 0,
      ],
    }
  },
  /**
   * Runs that need an executor: running runs without an owner since `staleBefore` (an API
   * process admits runs without one and the work queue hands them to a worker at once; the
   * sweep takes those it lost, not every run of the queue, which workers would all try to
   * acquire), owned by a worker that is not alive, or (unless `own` is false) owned by
   * `workerId` but left untouched since `staleBefore` (a run this process lost track of); and
   * runs with inbox events. Every heartbeat asks, so each part reads the partial index
   * runs_running_owner by owner and never every running run. The runs this process executes are
   * not read; those it has queued for longer than `staleBefore` (tens of thousands under a
   * backlog) are, which is why its sweep leaves out its own while it has runs queued. Each part
   * states the index's condition (`status = 'running'`), which SQLite needs to use it.
   */
  needingExecution(db: SqlExecutor, workerId: string, staleBefore: number, options: { own?: boolean } = {}) {
    return db.all<{ id: string }>(options.own === false ? NEEDING_EXECUTION_NOT_OWN_SQL : NEEDING_EXECUTION_SQL, [
      workerId,
      staleBefore,
    ])
  },
  /**
   * Takes ownership of a run unless a live worker (a heartbeat since `staleBefore`) holds it, and
   * reads it in the same statement: its row, and whether inbox events wait for it. Undefined when
   * it is not this worker's to run (another live worker holds it, or it ended).
   */
  acquire(db: SqlExecutor, runId: string, workerId: string, staleBefore: number) {
    return db.get<RunRow & { has_inbox: unknown }>(
      `UPDATE runs SET owner = $1 WHERE id = $2 AND ${ACTIVE_SQL}
         AND (owner IS NULL OR owner = $1 OR owner NOT IN (SELECT id FROM workers WHERE heartbeat_at >= $3))
       RETURNING *, EXISTS (SELECT 1 FROM run_inbox WHERE run_inbox.run_id = runs.id) AS has_inbox`,
      [workerId, runId, staleBefore],
    )
  },
  /**
   * `acquire` for several runs in one statement (a worker's turn starts a slice of runs at once):
   * the rows of those it took, in no order; a run missing from the answer is not this worker's.
   */
  acquireMany(db: SqlExecutor, dialect: Dialect, runIds: readonly string[], workerId: string, staleBefore: number) {
    const ids =
      dialect === 'postgres' ? 'SELECT jsonb_array_elements_text($2::text::jsonb)' : 'SELECT value FROM json_each($2)'
    return db.all<RunRow & { has_inbox: unknown }>(
      `UPDATE runs SET owner = $1 WHERE id IN (${ids}) AND ${ACTIVE_SQL}
         AND (owner IS NULL OR owner = $1 OR owner NOT IN (SELECT id FROM workers WHERE heartbeat_at >= $3))
       RETURNING *, EXISTS (SELECT 1 FROM run_inbox WHERE run_inbox.run_id = runs.id) AS has_inbox`,
      [workerId, JSON.stringify(runIds), staleBefore],
    )
  },
  /** Runs admitted and not started yet (running, no snapshot; or held for their turn, fair_rank), counted per organization. */
  unstartedByOrganization(db: SqlExecutor) {
    return db.all<{ organization_id: string; n: number }>(
      `SELECT organization_id, COUNT(*) AS n FROM runs
        WHERE (status = 'waiting' AND fair_rank IS NOT NULL) OR status = 'running' AND snapshot IS NULL GROUP BY organization_id`,
    )
  },
  /** Running runs no worker owns: admitted and not taken yet (oldest first). */
  unowned(db: SqlExecutor) {
    return db.all<{ id: string }>("SELECT id FROM runs WHERE status = 'running' AND owner IS NULL ORDER BY updated_at")
  },
  byId(db: SqlExecutor, organizationId: string, id: string) {
    return db.get<RunRow>('SELECT * FROM runs WHERE organization_id = $1 AND id = $2', [organizationId, id])
  },
  byIdAnyOrg(db: SqlExecutor, id: string) {
    return db.get<RunRow>('SELECT * FROM runs WHERE id = $1', [id])
  },
  list(db: SqlExecutor, organizationId: string, page: PageRequest, filter: RunFilter) {
    const { where, params } = filtered(organizationId, filter)
    params.push(page.limit + 1, page.offset)
    return db.all<RunRow>(
      `SELECT ${SUMMARY_COLUMNS} FROM runs WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    )
  },
  statusCounts(db: SqlExecutor, organizationId: string, filter: RunFilter) {
    const { where, params } = filtered(organizationId, filter)
    return db.all<{ status: string; n: number }>(
      `SELECT status, COUNT(*) AS n FROM runs WHERE ${where.join(' AND ')} GROUP BY status`,
      params,
    )
  },
  /** Ids of the oldest runs that match, at most `limit`: what a bulk action works through. */
  idsMatching(
    db: SqlExecutor,
    organizationId: string,
    filter: RunFilter & { statuses: readonly string[]; notRetried?: boolean },
    limit: number,
  ) {
    const { where, params } = filtered(organizationId, filter)
    where.push(
      `status IN (${filter.statuses
        .map((s) => {
          params.push(s)
          return `$${params.length}`
        })
        .join(', ')})`,
    )
    // A run retried once is not retried again in bulk (a repeated request, a retry chain).
    if (filter.notRetried) where.push('NOT EXISTS (SELECT 1 FROM runs r WHERE r.retry_of = runs.id)')
    params.push(limit)
    return db.all<{ id: string }>(
      `SELECT id FROM runs WHERE ${where.join(' AND ')} ORDER BY started_at, id LIMIT $${params.length}`,
      params,
    )
  },
  finishedBetween(db: SqlExecutor, organizationId: string, from: number, to: number) {
    return db.all<{ status: string; n: number }>(
      'SELECT status, COUNT(*) AS n FROM runs WHERE organization_id = $1 AND finished_at >= $2 AND finished_at <= $3 GROUP BY status',
      [organizationId, from, to],
    )
  },
  definition(db: SqlExecutor, hash: string) {
    return db.get<{ body: string }>('SELECT body FROM definitions WHERE hash = $1', [hash])
  },
  /** Stores a definition by its hash, once: runs of the same definition share the row. */
  storeDefinition: (db: SqlExecutor, hash: string, body: string, at: number) =>
    db.run('INSERT INTO definitions (hash, body, created_at) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING', [
      hash,
      body,
      at,
    ]),
}

/** Public runs per workflow, caller address and UTC day (publicRunCooldownSeconds, publicRunDailyLimit). */
export const publicRunUsage = {
  get: (db: SqlExecutor, workflowId: string, caller: string, day: string) =>
    db.get<{ count: number; last_at: number }>(
      'SELECT count, last_at FROM public_run_usage WHERE workflow_id = $1 AND caller = $2 AND day = $3',
      [workflowId, caller, day],
    ),
  count: (db: SqlExecutor, workflowId: string, caller: string, day: string, at: number) =>
    db.run(
      `INSERT INTO public_run_usage (workflow_id, caller, day, count, last_at) VALUES ($1, $2, $3, 1, $4)
       ON CONFLICT (workflow_id, caller, day) DO UPDATE SET count = public_run_usage.count + 1, last_at = excluded.last_at`,
      [workflowId, caller, day, at],
    ),
}

const NEEDING_EXECUTION_NOT_OWN_SQL = `
  SELECT id FROM runs WHERE status = 'running' AND owner IS NULL AND updated_at < $2
  UNION SELECT id FROM runs WHERE status = 'running' AND owner IN (
    SELECT DISTINCT owner FROM runs WHERE status = 'running' AND owner IS NOT NULL AND owner <> $1
      AND owner NOT IN (SELECT id FROM workers WHERE heartbeat_at >= $2))
  UNION SELECT DISTINCT run_id AS id FROM run_inbox`
const NEEDING_EXECUTION_SQL = `${NEEDING_EXECUTION_NOT_OWN_SQL}
  UNION SELECT id FROM runs WHERE status = 'running' AND owner = $1 AND updated_at < $2`
