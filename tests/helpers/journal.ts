/**
 * The journal read back as the streams read it, for tests: a run's events after a sequence number
 * and an organization's after an id, one event each (a row holding several is unpacked), at most
 * `limit` events. Numbers come back as numbers on every store.
 */
import { type RecordedEvent, recordedEventsOf } from '../../core/domain-events.ts'
import type { SqlExecutor } from '../../core/ports/store.ts'
import { journal, type JournalRow } from '../../core/store/journal.ts'

const asNumbers = (e: RecordedEvent): RecordedEvent => ({
  ...e,
  id: Number(e.id),
  seq: e.seq === null ? null : Number(e.seq),
  at: Number(e.at),
})

/**
 * Reads pages of rows from `after` on, keeping the events past it, until `limit` events are kept
 * or the rows run out. A page of `limit` rows holds at least `limit` events past the first row's.
 */
async function eventsAfter(
  after: number,
  limit: number,
  page: (after: number, rows: number) => Promise<JournalRow[]>,
  position: (e: RecordedEvent) => number,
): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = []
  let from = after
  while (events.length < limit) {
    const rows = await page(from, limit - events.length + 1)
    const next = rows.flatMap(recordedEventsOf).map(asNumbers)
    const past = next.filter((e) => position(e) > from)
    if (past.length === 0) break
    events.push(...past)
    from = position(past[past.length - 1])
  }
  return events.slice(0, limit)
}

/** A run's events after `afterSeq`, in order: at most `limit` events. */
export function runEvents(db: SqlExecutor, runId: string, afterSeq = 0, limit = 1000): Promise<RecordedEvent[]> {
  return eventsAfter(
    afterSeq,
    limit,
    (from, rows) => journal.rowsOfRun(db, runId, from, rows),
    (e) => e.seq ?? 0,
  )
}

/** An organization's events (its runs' and its workflows') after the id `afterId`, in order: at most `limit` events. */
export function organizationEvents(
  db: SqlExecutor,
  organizationId: string,
  afterId = 0,
  limit = 1000,
): Promise<RecordedEvent[]> {
  return eventsAfter(
    afterId,
    limit,
    (from, rows) => journal.rowsOfOrganization(db, organizationId, from, rows),
    (e) => e.id,
  )
}

/** The newest event id in the journal (0 when it is empty). */
export async function lastJournalId(db: SqlExecutor): Promise<number> {
  const row = await db.get<{ id: number }>('SELECT id + n - 1 AS id FROM journal ORDER BY id DESC LIMIT 1')
  return Number(row?.id ?? 0)
}
