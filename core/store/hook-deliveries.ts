/**
 * Rows of execution-hook deliveries (the outbox), in portable SQL.
 *
 * A delivery is due when `due_at <= now`. A worker claims due rows by moving `due_at` to the end
 * of its lease and writing its id in `claimed_by`, in one conditional UPDATE; the pair is the
 * lease, and only the holder's completion (matching both) is written. A worker that dies leaves
 * rows that simply become due again when the lease ends. `due_at` is NULL once a delivery is
 * finished. Nothing here sends anything.
 */
import type { PageRequest } from '../domain/common.ts'
import type { DeliveryAttempt, DeliveryFilter, DeliveryStatus, HookDelivery } from '../domain/execution-hook.ts'
import { parseJson } from '../json.ts'
import { type Dialect, forUpdate, type SqlExecutor } from '../ports/store.ts'
import { iso } from '../time.ts'

export interface DeliveryRow {
  id: string
  organization_id: string
  endpoint_id: string
  event_id: string
  event_type: string
  workflow_id: string | null
  run_id: string | null
  node_id: string | null
  payload: string
  status: DeliveryStatus
  attempt_count: number
  retry_count: number
  max_retries: number
  due_at: number | null
  next_retry_at: number | null
  claimed_by: string | null
  response_status: number | null
  response_body: string | null
  duration_ms: number | null
  error_message: string | null
  /** JSON: the last attempts, `{ at, status, ms, error, by }`. */
  attempts: string
  replay_of: string | null
  created_at: number
  updated_at: number
  delivered_at: number | null
}

export interface StoredAttempt {
  at: number
  status: number | null
  ms: number
  error: string | null
  /** The worker that made it; kept for operators, not shown in the API. */
  by: string
}

export const MAX_ATTEMPTS_KEPT = 25

export function toDelivery(r: DeliveryRow, withPayload = false): HookDelivery {
  const attempts = parseJson<StoredAttempt[]>(r.attempts, []).map(
    (a): DeliveryAttempt => ({
      at: iso(a.at),
      responseStatus: a.status,
      durationMs: a.ms,
      errorMessage: a.error ?? '',
    }),
  )
  const delivery: HookDelivery = {
    id: r.id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    eventType: r.event_type,
    // Unset strings are "" in answers (the specification's rule); the row keeps null.
    workflowId: r.workflow_id ?? '',
    runId: r.run_id ?? '',
    nodeId: r.node_id ?? '',
    status: r.status,
    retryCount: Number(r.retry_count),
    maxRetries: Number(r.max_retries),
    nextRetryAt: iso(r.next_retry_at) ?? '',
    responseStatus: r.response_status === null ? null : Number(r.response_status),
    responseBody: r.response_body ?? '',
    durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
    errorMessage: r.error_message ?? '',
    attempts,
    replayOf: r.replay_of ?? '',
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    deliveredAt: iso(r.delivered_at) ?? '',
  }
  if (withPayload) delivery.payload = parseJson<unknown>(r.payload, null)
  return delivery
}

/** The columns a new delivery is written with; the rest take their defaults. */
export const NEW_DELIVERY_COLUMNS = [
  'id',
  'organization_id',
  'endpoint_id',
  'event_id',
  'event_type',
  'workflow_id',
  'run_id',
  'node_id',
  'payload',
  'status',
  'max_retries',
  'due_at',
  'claimed_by',
  'replay_of',
  'created_at',
  'updated_at',
] as const
export type NewDelivery = Pick<DeliveryRow, (typeof NEW_DELIVERY_COLUMNS)[number]>

const CHUNK = 100

export interface Lease {
  readonly id: string
  readonly worker: string
  /** The `due_at` the claim set: with `worker`, what proves the lease is still held. */
  readonly until: number
}

export interface Outcome {
  status: DeliveryStatus
  attemptCount: number
  retryCount: number
  nextRetryAt: number | null
  responseStatus: number | null
  responseBody: string | null
  durationMs: number
  errorMessage: string | null
  /** JSON of the attempts kept. */
  attempts: string
  at: number
  deliveredAt: number | null
}

export interface Completion {
  readonly lease: Lease
  readonly outcome: Outcome
}

const COMPLETION_CHUNKS = [64, 16, 4, 1]
// The VALUES list carries parameters, whose types Postgres cannot infer: each is cast.
const COMPLETION_TYPES = [
  'TEXT',
  'TEXT',
  'BIGINT',
  'TEXT',
  'INTEGER',
  'INTEGER',
  'BIGINT',
  'INTEGER',
  'TEXT',
  'INTEGER',
  'TEXT',
  'TEXT',
  'BIGINT',
  'BIGINT',
]

/** The whole row of a delivery as it is written, as a claim would read it back. */
export function newDeliveryRow(row: NewDelivery): DeliveryRow {
  return {
    ...row,
    attempt_count: 0,
    retry_count: 0,
    next_retry_at: null,
    response_status: null,
    response_body: null,
    duration_ms: null,
    error_message: null,
    attempts: '[]',
    delivered_at: null,
  }
}

/** Statement texts by shape, built once: the outbox and the worker run them thousands of times a second. */
const statements = new Map<string, string>()
const statement = (key: string, build: () => string) => statements.get(key) ?? statements.set(key, build()).get(key)!

const insertSql = (rows: number) =>
  statement(`insert ${rows}`, () => {
    const n = NEW_DELIVERY_COLUMNS.length
    const values = Array.from(
      { length: rows },
      (_, i) => `(${NEW_DELIVERY_COLUMNS.map((_, j) => `$${i * n + j + 1}`).join(', ')})`,
    )
    return `INSERT INTO hook_deliveries (${NEW_DELIVERY_COLUMNS.join(', ')}) VALUES ${values.join(', ')}`
  })

const completeSql = (rows: number) =>
  statement(`complete ${rows}`, () => {
    const n = COMPLETION_TYPES.length
    const values = Array.from(
      { length: rows },
      (_, i) => `(${COMPLETION_TYPES.map((type, j) => `CAST($${i * n + j + 1} AS ${type})`).join(', ')})`,
    )
    return `WITH v (id, worker, lease, status, attempt_count, retry_count, next_retry_at, response_status, response_body, duration_ms, error_message, attempts, updated_at, delivered_at)
      AS (VALUES ${values.join(', ')})
    UPDATE hook_deliveries SET status = v.status, attempt_count = v.attempt_count, retry_count = v.retry_count, next_retry_at = v.next_retry_at,
      due_at = v.next_retry_at, claimed_by = NULL, response_status = v.response_status, response_body = v.response_body, duration_ms = v.duration_ms,
      error_message = v.error_message, attempts = v.attempts, updated_at = v.updated_at, delivered_at = v.delivered_at
    FROM v WHERE hook_deliveries.id = v.id AND hook_deliveries.claimed_by = v.worker AND hook_deliveries.due_at = v.lease
    RETURNING hook_deliveries.id`
  })

export const hookDeliveries = {
  async insert(db: SqlExecutor, rows: readonly NewDelivery[]) {
    for (let start = 0; start < rows.length; start += CHUNK) {
      const chunk = rows.slice(start, start + CHUNK)
      await db.run(
        insertSql(chunk.length),
        chunk.flatMap((row) => NEW_DELIVERY_COLUMNS.map((c) => row[c])),
      )
    }
  },
  byId(db: SqlExecutor, organizationId: string, id: string) {
    return db.get<DeliveryRow>('SELECT * FROM hook_deliveries WHERE organization_id = $1 AND id = $2', [
      organizationId,
      id,
    ])
  },
  list(db: SqlExecutor, organizationId: string, filter: DeliveryFilter, page: PageRequest) {
    const where = ['organization_id = $1']
    const params: (string | number)[] = [organizationId]
    const add = (column: string, value: string | undefined) => {
      if (value === undefined) return
      params.push(value)
      where.push(`${column} = $${params.length}`)
    }
    add('endpoint_id', filter.endpointId)
    add('status', filter.status)
    add('run_id', filter.runId)
    params.push(page.limit + 1, page.offset)
    return db.all<DeliveryRow>(
      `SELECT * FROM hook_deliveries WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    )
  },
  /**
   * Leases up to `limit` due deliveries to `worker` until `until`. Postgres skips rows another
   * worker is claiming at this moment; the repeated `due_at` test makes a row that was claimed
   * meanwhile drop out instead of being claimed twice.
   */
  claim(db: SqlExecutor, dialect: Dialect, worker: string, now: number, until: number, limit: number) {
    const lock = dialect === 'postgres' ? `${forUpdate(dialect)} SKIP LOCKED` : ''
    return db.all<DeliveryRow>(
      `UPDATE hook_deliveries SET claimed_by = $1, due_at = $2
       WHERE id IN (SELECT id FROM hook_deliveries WHERE due_at <= $3 ORDER BY due_at LIMIT $4${lock}) AND due_at <= $3
       RETURNING *`,
      [worker, until, now, limit],
    )
  },
  /** When the next delivery falls due (a lease's end included); null when none is unfinished. */
  async nextDue(db: SqlExecutor): Promise<number | null> {
    const row = await db.get<{ at: number | null }>(
      'SELECT MIN(due_at) AS at FROM hook_deliveries WHERE due_at IS NOT NULL',
    )
    return row?.at === null || row?.at === undefined ? null : Number(row.at)
  },
  /** Gives leased rows back (a stopping worker): due at once, for whoever comes next. */
  release(db: SqlExecutor, id: string, worker: string, leasedUntil: number, now: number) {
    return db.run(
      'UPDATE hook_deliveries SET due_at = $1, claimed_by = NULL WHERE id = $2 AND claimed_by = $3 AND due_at = $4',
      [now, id, worker, leasedUntil],
    )
  },
  /** Makes every lease due now: only safe when no other process can hold one (the embedded store). */
  releaseAll(db: SqlExecutor, now: number) {
    return db.run(
      'UPDATE hook_deliveries SET due_at = $1, claimed_by = NULL WHERE claimed_by IS NOT NULL AND due_at > $1',
      [now],
    )
  },
  /**
   * Writes the outcomes of attempts, each only if its lease is still the worker's; resolves to
   * the ids written. One statement per chunk; chunks have a few fixed sizes, so a database that
   * prepares statements keeps only a few of them.
   */
  async complete(db: SqlExecutor, items: readonly Completion[]): Promise<Set<string>> {
    const written = new Set<string>()
    for (let at = 0; at < items.length; ) {
      const size = COMPLETION_CHUNKS.find((n) => items.length - at >= n)!
      const chunk = items.slice(at, at + size)
      at += size
      const params = chunk.flatMap(({ lease, outcome: o }) => [
        lease.id,
        lease.worker,
        lease.until,
        o.status,
        o.attemptCount,
        o.retryCount,
        o.nextRetryAt,
        o.responseStatus,
        o.responseBody,
        o.durationMs,
        o.errorMessage,
        o.attempts,
        o.at,
        o.deliveredAt,
      ])
      const done = await db.all<{ id: string }>(completeSql(size), params)
      for (const row of done) written.add(row.id)
    }
    return written
  },
  /** Ends a delivery without an attempt (its endpoint is gone or disabled). */
  async abandon(db: SqlExecutor, lease: Lease, reason: string, at: number) {
    return (
      (await db.run(
        `UPDATE hook_deliveries SET status = 'failure', next_retry_at = NULL, due_at = NULL, claimed_by = NULL, error_message = $1, updated_at = $2
       WHERE id = $3 AND claimed_by = $4 AND due_at = $5`,
        [reason, at, lease.id, lease.worker, lease.until],
      )) === 1
    )
  },
  /** `POST …/retry`: the same record, due now. Only a finished failure or a waiting retry. */
  requeue(db: SqlExecutor, organizationId: string, id: string, now: number) {
    return db.run(
      `UPDATE hook_deliveries SET status = CASE WHEN status = 'failure' THEN 'retrying' ELSE status END, due_at = $1, next_retry_at = $1, updated_at = $1
       WHERE organization_id = $2 AND id = $3 AND (status = 'failure' OR (status = 'retrying' AND claimed_by IS NULL))`,
      [now, organizationId, id],
    )
  },
}
