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
import type { SqlExecutor } from './ports/store.ts'
import { type EventRow, events } from './store/events.ts'

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
    data: dataOf(row),
    at: row.at,
  }
}

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

function dataOf(row: EventRow): Record<string, unknown> {
  const data = JSON.parse(row.data) as Record<string, unknown>
  if (row.seq === null || row.run_id === null || data === null || typeof data !== 'object' || 'runId' in data)
    return data
  return { runId: row.run_id, workflowId: row.workflow_id, ...data }
}

/**
 * Appends events to the journal inside a transaction and returns them with their ids.
 *
 * Ids increase, but on Postgres transactions commit in any order, so an id may appear after a
 * larger one, and an id a rolled-back transaction took never appears: readers by id wait for
 * gaps to fill (see runtime/streams.ts). On SQLite (one writer) ids appear in order, without gaps.
 */
export async function recordEvents(tx: SqlExecutor, list: readonly DomainEvent[]): Promise<RecordedEvent[]> {
  if (list.length === 0) return []
  const ids = await events.insert(
    tx,
    list.map((e) => ({
      organization_id: e.organizationId,
      workflow_id: e.workflowId,
      run_id: e.runId,
      seq: e.seq,
      type: e.type,
      node_id: e.nodeId,
      data: storedData(e),
      at: e.at,
    })),
  )
  return list.map((e, i) => ({ ...e, id: ids[i] }))
}

/** Publishes committed events on the bus. */
export function publishEvents(bus: Bus, list: readonly RecordedEvent[]): void {
  for (const e of list) bus.publish(eventSubject(e.organizationId, e.workflowId, e.runId), e)
}
