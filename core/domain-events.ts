/**
 * Domain events: the journal rows of runs and workflows as the rest of the system sees them,
 * and the bus subjects they travel on.
 *
 * Subjects are `evt.<organizationId>.<workflowId>.<runId>` (`_` when an event has no run), so a
 * subscriber picks one run (`evt.*.*.<runId>`), one workflow (`evt.<org>.<wf>.>`) or one
 * organization (`evt.<org>.>`). An event is published only after the row that records it is
 * committed: what a stream shows is never lost.
 */
import type { Bus } from './ports/bus.ts'
import type { SqlExecutor, Statement } from './ports/store.ts'
import { type EventRow, journal, ID_BLOCK, type JournalRow, type NewJournalRow } from './store/journal.ts'

export interface DomainEvent {
  organizationId: string
  workflowId: string | null
  runId: string | null
  /** Position in the run's journal; null for workflow events. */
  seq: number | null
  type: string
  nodeId: string | null
  data: Record<string, unknown>
  at: number
}

export interface RecordedEvent extends DomainEvent {
  /** Global, increasing id of the journal row. */
  id: number
}

export const eventSubject = (organizationId: string, workflowId: string | null, runId: string | null) =>
  `evt.${organizationId}.${workflowId ?? '_'}.${runId ?? '_'}`

export function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.id,
    organizationId: row.organization_id,
    workflowId: row.workflow_id,
    runId: row.run_id,
    seq: row.seq,
    type: row.type,
    nodeId: row.node_id,
    data: withIds(row, JSON.parse(row.data)),
    at: row.at,
  }
}

/** The events of a journal row, in order: a pack's data is read once. */
export function recordedEventsOf(row: JournalRow): RecordedEvent[] {
  const n = Number(row.n)
  if (n === 1) return [toRecordedEvent(row)]
  const first = Number(row.id)
  const seq = row.seq === null ? null : Number(row.seq)
  return (JSON.parse(row.data) as PackedEvent[]).map(([type, nodeId, data, at], i) => ({
    id: first + i,
    organizationId: row.organization_id,
    workflowId: row.workflow_id,
    runId: row.run_id,
    seq: seq === null ? null : seq + i,
    type,
    nodeId,
    data: withIds(row, data),
    at,
  }))
}

/** An event inside a pack: the columns of a row of one. */
type PackedEvent = [type: string, nodeId: string | null, data: Record<string, unknown>, at: number]

/**
 * A run's journal event carries its run and workflow ids first in its data. The row keeps them
 * in its columns, so the stored data leaves them out (storedData) and reading puts them back;
 * data stored whole, as it was before, is read as it is.
 */
function storedData(e: DomainEvent): string {
  const json = JSON.stringify(e.data)
  if (e.seq === null || e.runId === null || e.workflowId === null) return json
  // The ids come first in a run event's data (see the journal): cut them from the text rather
  // than copy the object without them.
  const ids = `{"runId":${JSON.stringify(e.runId)},"workflowId":${JSON.stringify(e.workflowId)}`
  if (!json.startsWith(ids)) return json
  const next = json[ids.length]
  return next === ',' ? `{${json.slice(ids.length + 1)}` : next === '}' ? '{}' : json
}

function withIds(row: EventRow, data: Record<string, unknown>): Record<string, unknown> {
  if (row.seq === null || row.run_id === null || data === null || typeof data !== 'object' || 'runId' in data)
    return data
  return { runId: row.run_id, workflowId: row.workflow_id, ...data }
}

/**
 * Appends events to the journal inside a transaction and returns them with their ids. The events
 * of one run (or workflow) that follow each other in `list` share a row, up to ID_BLOCK of them.
 *
 * Ids increase, but on Postgres transactions commit in any order, so an id may appear after a
 * larger one, and an id a rolled-back transaction took never appears: readers by id wait for
 * gaps to fill (see runtime/streams-horizon.ts). On SQLite (one writer) ids appear in order, without gaps.
 */
export async function recordEvents(tx: SqlExecutor, list: readonly DomainEvent[]): Promise<RecordedEvent[]> {
  return (await recordEventsWith(tx, list, [])).recorded
}

/**
 * `recordEvents`, running `also` with the journal's rows (journal.insertWith: one statement on
 * Postgres); resolves to the events and the rows each statement of `also` changed.
 */
export async function recordEventsWith(
  tx: SqlExecutor,
  list: readonly DomainEvent[],
  also: readonly Statement[],
): Promise<{ recorded: RecordedEvent[]; changed: number[] }> {
  const packs = list.length > 0 ? packsOf(list) : []
  const { ids, changed } = await journal.insertWith(tx, packs.map(rowOf), also)
  const recorded: RecordedEvent[] = []
  packs.forEach((pack, p) => {
    for (let i = 0; i < pack.length; i++) recorded.push({ ...pack[i], id: ids[p] + i })
  })
  return { recorded, changed }
}

/** Runs of consecutive events that one row can hold: the same run (or workflow), sequence numbers in a row. */
function packsOf(list: readonly DomainEvent[]): DomainEvent[][] {
  const packs: DomainEvent[][] = []
  let pack: DomainEvent[] = []
  for (const e of list) {
    const last = pack[pack.length - 1]
    const joins =
      last !== undefined &&
      pack.length < ID_BLOCK &&
      e.organizationId === last.organizationId &&
      e.workflowId === last.workflowId &&
      e.runId === last.runId &&
      (e.seq === null ? last.seq === null : last.seq !== null && e.seq === last.seq + 1)
    if (!joins && pack.length > 0) {
      packs.push(pack)
      pack = []
    }
    pack.push(e)
  }
  packs.push(pack)
  return packs
}

function rowOf(pack: readonly DomainEvent[]): NewJournalRow {
  const first = pack[0]
  const row = {
    n: pack.length,
    organization_id: first.organizationId,
    workflow_id: first.workflowId,
    run_id: first.runId,
    seq: first.seq,
    at: first.at,
  }
  if (pack.length === 1) return { ...row, type: first.type, node_id: first.nodeId, data: storedData(first) }
  // The pack's text is written by hand: each event's data is already its stored text.
  const parts = pack.map(
    (e) =>
      `[${JSON.stringify(e.type)},${e.nodeId == null ? 'null' : JSON.stringify(e.nodeId)},${storedData(e)},${e.at}]`,
  )
  return { ...row, type: '', node_id: null, data: `[${parts.join(',')}]` }
}

/** Publishes committed events on the bus. */
export function publishEvents(bus: Bus, list: readonly RecordedEvent[]): void {
  for (const e of list) bus.publish(eventSubject(e.organizationId, e.workflowId, e.runId), e)
}
