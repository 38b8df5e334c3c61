/**
 * The event journal. Each row of the `journal` table holds the events one write recorded for
 * one run (or workflow), in order: `n` events with the ids `id … id + n - 1` and, for a run, the
 * sequence numbers `seq … seq + n - 1`. A row of one event keeps it in its columns as the rows
 * of old did; a row of more (a pack) keeps them in `data` as `[type, nodeId, data, at]` arrays.
 * The `events` view shows one row per event, for reading by hand.
 *
 * Ids only grow. On SQLite (one writer) a row takes the ids after the newest row's. On Postgres
 * each row takes a block of ID_BLOCK ids from the sequence (`nextval` moves it by a block) and
 * uses the first n: several processes take ids at once without waiting for each other, and the
 * ids a row leaves unused are known never to appear (see nextIdAfter). Streams replay from here;
 * the bus only tells listeners that rows were added.
 */
import type { SqlExecutor, SqlValue, Statement, Store } from '../ports/store.ts'

/** One event as the `events` view shows it (a journal row of one event is the same). */
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

/** A stored journal row: `n` events from `id` (and from `seq`, for a run). */
export interface JournalRow extends EventRow {
  n: number
}

export type NewJournalRow = Omit<JournalRow, 'id'>

/** The most events one row holds, and on Postgres the ids each row takes from the sequence. */
export const ID_BLOCK = 128

/**
 * The first id that may follow `id` in the journal: `id + 1`, or on Postgres the next block's
 * first id when `id` ends a row. A reader that saw every id up to `id` and then sees one of these
 * has missed nothing.
 */
export const nextIdAfter = (id: number): number => Math.floor((id - 1) / ID_BLOCK) * ID_BLOCK + 1 + ID_BLOCK

const COLUMNS = ['n', 'organization_id', 'workflow_id', 'run_id', 'seq', 'type', 'node_id', 'data', 'at'] as const
const CHUNK = 200
const SELECT = 'SELECT id, n, organization_id, workflow_id, run_id, seq, type, node_id, data, at FROM journal'

/** SQLite's insert of one row: its ids follow the newest row's. */
const SQLITE_INSERT = `INSERT INTO journal (id, ${COLUMNS.join(', ')})
  VALUES (COALESCE((SELECT id + n FROM journal ORDER BY id DESC LIMIT 1), 1), ${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
  RETURNING id`

/**
 * Postgres's INSERT of `rows` rows, built once per count: stores cache prepared statements by their
 * SQL text, and a string built anew for every insert would be hashed again on each lookup.
 */
const postgresInsertSql: string[] = []
function postgresInsertFor(rows: number): string {
  let sql = postgresInsertSql[rows]
  if (sql === undefined) {
    const values = Array.from(
      { length: rows },
      (_, i) => `(${COLUMNS.map((_, j) => `$${i * COLUMNS.length + j + 1}`).join(', ')})`,
    )
    sql = postgresInsertSql[rows] =
      `INSERT INTO journal (${COLUMNS.join(', ')}) VALUES ${values.join(', ')} RETURNING id`
  }
  return sql
}

const paramsOf = (row: NewJournalRow) => COLUMNS.map((c) => row[c])

/**
 * Postgres's one statement for `insertWith`: the INSERT of `rows` rows and each statement of `also`
 * as data-modifying parts of one WITH, answering the first ids and each part's count of rows.
 * Built once per shape, for the same reason as above: a tree keyed by the row count, then by each
 * statement's text (constant strings, whose hashes the engine keeps), so a lookup builds no string.
 */
interface WithShape {
  sql?: string
  readonly next: Map<string, WithShape>
}
const postgresWithSql = new Map<number, WithShape>()
function postgresWithFor(rows: number, also: readonly Statement[]): string {
  let shape: WithShape | undefined = postgresWithSql.get(rows)
  if (!shape) postgresWithSql.set(rows, (shape = { next: new Map() }))
  for (const s of also) {
    let next: WithShape | undefined = shape.next.get(s.sql)
    if (!next) shape.next.set(s.sql, (next = { next: new Map() }))
    shape = next
  }
  if (shape.sql === undefined) {
    let offset = rows * COLUMNS.length
    const parts = also.map((s, i) => {
      // Numbered after the rows' parameters and the statements' before it: a statement must use $1 … $n for its n.
      const used = Math.max(0, ...[...s.sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])))
      if (used !== s.params.length) throw new Error(`a statement uses $${used} with ${s.params.length} parameters`)
      const text = s.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)
      offset += s.params.length
      return `a${i} AS (${text} RETURNING 1)`
    })
    const counts = also.map((_, i) => `(SELECT COUNT(*) FROM a${i}) AS c${i}`)
    shape.sql = `WITH j AS (${postgresInsertFor(rows)}), ${parts.join(', ')}
      SELECT (SELECT json_agg(id) FROM j) AS ids, ${counts.join(', ')}`
  }
  return shape.sql
}

export const journal = {
  /** The id just before the newest `rows` rows (0 when there are fewer). */
  async idBeforeRows(db: SqlExecutor, rows: number) {
    const row = await db.get<{ id: number }>('SELECT id FROM journal ORDER BY id DESC LIMIT 1 OFFSET $1', [rows])
    return row ? Number(row.id) - 1 : 0
  },
  /** The id ranges of the rows holding ids after one, in order: what the activity streams' horizon walks. */
  rangesAfter: async (db: SqlExecutor, afterId: number, limit: number) =>
    (
      await db.all<{ id: number; n: number }>(
        'SELECT id, n FROM journal WHERE id > $1 AND id + n - 1 > $2 ORDER BY id LIMIT $3',
        [afterId - ID_BLOCK + 1, afterId, limit],
      )
    ).map((r) => ({ id: Number(r.id), n: Number(r.n) })),
  /** Inserts rows; resolves to their first ids, in order. */
  async insert(db: SqlExecutor, rows: readonly NewJournalRow[]): Promise<number[]> {
    const ids: number[] = []
    if (db.dialect !== 'postgres') {
      for (const row of rows) ids.push(Number((await db.get<{ id: number }>(SQLITE_INSERT, paramsOf(row)))!.id))
      return ids
    }
    for (let start = 0; start < rows.length; start += CHUNK) {
      const end = Math.min(rows.length, start + CHUNK)
      const params: Array<string | number | null> = []
      for (let r = start; r < end; r++) params.push(...paramsOf(rows[r]))
      const returned = await db.all<{ id: number }>(postgresInsertFor(end - start), params)
      // Postgres numbers the rows of one INSERT in VALUES order; sort to be independent of RETURNING's order.
      const chunk = returned.map((r) => Number(r.id)).sort((a, b) => a - b)
      for (const id of chunk) ids.push(id)
    }
    return ids
  },
  /**
   * Inserts rows and runs `also` (statements that return no rows) in the same transaction;
   * resolves to the rows' first ids, in order, and the rows each statement of `also` changed. On
   * Postgres that is one statement (a WITH of them all): a run's journal row, its state and its
   * workflow's failure count cost one round trip instead of three. Each part sees the database
   * as it was before the statement, so `also` must not read what the insert writes. On SQLite the
   * rows are inserted first, then each statement runs in turn.
   */
  async insertWith(
    db: SqlExecutor,
    rows: readonly NewJournalRow[],
    also: readonly Statement[],
  ): Promise<{ ids: number[]; changed: number[] }> {
    if (db.dialect !== 'postgres' || rows.length === 0 || rows.length > CHUNK || also.length === 0) {
      const ids = await journal.insert(db, rows)
      const changed: number[] = []
      for (const s of also) changed.push(await db.run(s.sql, s.params))
      return { ids, changed }
    }
    const params: SqlValue[] = []
    for (const row of rows) params.push(...paramsOf(row))
    for (const s of also) params.push(...s.params)
    const answer = await db.get<Record<string, unknown>>(postgresWithFor(rows.length, also), params)
    return {
      ids: (answer!.ids as number[]).map(Number).sort((a, b) => a - b),
      changed: also.map((_, i) => Number(answer![`c${i}`])),
    }
  },
  /** The rows of a run holding its events after `afterSeq`, in order (the first may begin at or before it). */
  rowsOfRun(db: SqlExecutor, runId: string, afterSeq: number, limit = 1000) {
    return db.all<JournalRow>(
      `${SELECT} WHERE run_id = $1 AND seq >= COALESCE((SELECT MAX(seq) FROM journal WHERE run_id = $1 AND seq <= $2), 0)
       ORDER BY seq LIMIT $3`,
      [runId, afterSeq, limit],
    )
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
  /**
   * The rows of an organization holding events after an id: a primary-key range scan from just
   * below that id (a row holds at most ID_BLOCK ids). The first may begin at or before it.
   */
  rowsOfOrganization(db: SqlExecutor, organizationId: string, afterId: number, limit = 1000) {
    return db.all<JournalRow>(
      `${SELECT} WHERE id > $2 AND id + n - 1 > $3 AND organization_id = $1 ORDER BY id LIMIT $4`,
      [organizationId, afterId - ID_BLOCK + 1, afterId, limit],
    )
  },
}
