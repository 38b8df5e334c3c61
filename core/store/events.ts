/**
 * The event journal: one row per run transition (sequence-numbered per run) and per workflow
 * change. Streams replay from here; the bus only tells listeners that rows were added.
 */
import type { SqlExecutor, Store } from '../ports/store.ts'

export interface EventRow {
  id: number
  organization_id: string
  workflow_id: string | null
  run_id: string | null
  seq: number | null
  type: string
  node_id: string | null
  data: string
  at: number
}

export type NewEvent = Omit<EventRow, 'id'>

const COLUMNS = ['organization_id', 'workflow_id', 'run_id', 'seq', 'type', 'node_id', 'data', 'at'] as const
const CHUNK = 200

/**
 * The INSERT for n rows, built once per n: stores cache prepared statements by their SQL
 * text, and a string built anew for every insert would be hashed again on each lookup.
 */
const insertSql: string[] = []
function insertSqlFor(rows: number): string {
  let sql = insertSql[rows]
  if (sql === undefined) {
    const values = Array.from(
      { length: rows },
      (_, i) => `(${COLUMNS.map((_, j) => `$${i * COLUMNS.length + j + 1}`).join(', ')})`,
    )
    sql = insertSql[rows] = `INSERT INTO events (${COLUMNS.join(', ')}) VALUES ${values.join(', ')} RETURNING id`
  }
  return sql
}

export const events = {
  maxId: async (db: SqlExecutor) =>
    Number((await db.get<{ id: number | null }>('SELECT MAX(id) AS id FROM events'))?.id ?? 0),
  /** Journal ids after one, in order: what the activity streams' horizon walks. */
  idsAfter: async (db: SqlExecutor, afterId: number, limit: number) =>
    (await db.all<{ id: number }>('SELECT id FROM events WHERE id > $1 ORDER BY id LIMIT $2', [afterId, limit])).map(
      (r) => Number(r.id),
    ),
  /** Inserts events in multi-row statements; resolves to their ids, in order. */
  async insert(db: SqlExecutor, rows: readonly NewEvent[]): Promise<number[]> {
    const ids: number[] = []
    for (let start = 0; start < rows.length; start += CHUNK) {
      const end = Math.min(rows.length, start + CHUNK)
      const params: Array<string | number | null> = []
      for (let r = start; r < end; r++) for (const c of COLUMNS) params.push(rows[r][c])
      const returned = await db.all<{ id: number }>(insertSqlFor(end - start), params)
      // Both databases number the rows of one INSERT in VALUES order; sort to be independent of RETURNING's order.
      const chunk = returned.map((r) => Number(r.id)).sort((a, b) => a - b)
      for (const id of chunk) ids.push(id)
    }
    return ids
  },
  forRun(db: SqlExecutor, runId: string, afterSeq: number, limit = 1000) {
    return db.all<EventRow>('SELECT * FROM events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [
      runId,
      afterSeq,
      limit,
    ])
  },
  /**
   * A mark of the transactions that may still be writing journal rows: on Postgres a transaction
   * id handed out now, above every one handed out before. Null on SQLite, whose single writer commits ids in order,
   * so an id missing from what a reader sees will never appear.
   */
  async writersMark(store: Store): Promise<string | null> {
    if (store.dialect !== 'postgres') return null
    // A new transaction id: every transaction that had one before is below it. (A snapshot's xmax
    // will not do: it is one past the highest *completed* transaction, and a transaction still
    // in progress may be above it, and then is not in the snapshot at all.)
    const row = await store.get<{ mark: string }>('SELECT pg_current_xact_id()::text AS mark')
    return row?.mark ?? null
  },
  /** True once every transaction begun before the mark has committed or rolled back. */
  async writersDone(store: Store, mark: string | null): Promise<boolean> {
    if (mark === null) return true
    const row = await store.get<{ done: boolean }>(
      'SELECT pg_snapshot_xmin(pg_current_snapshot()) >= $1::text::xid8 AS done',
      [mark],
    )
    return row?.done === true
  },
  /** Events of an organization (or one workflow) after an id: a primary-key range scan from that id. */
  forOrganization(db: SqlExecutor, organizationId: string, afterId: number, limit = 1000, workflowId?: string) {
    return workflowId
      ? db.all<EventRow>(
          'SELECT * FROM events WHERE id > $3 AND organization_id = $2 AND workflow_id = $1 ORDER BY id LIMIT $4',
          [workflowId, organizationId, afterId, limit],
        )
      : db.all<EventRow>('SELECT * FROM events WHERE id > $2 AND organization_id = $1 ORDER BY id LIMIT $3', [
          organizationId,
          afterId,
          limit,
        ])
  },
}
