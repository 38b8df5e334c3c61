/**
 * Stream fan-out. One bus subscription per process (`evt.>`) feeds every stream subscriber.
 *
 * Run streams follow the run's journal sequence: a live event that is not the next number (a
 * message the bus dropped, or a subscriber still catching up) triggers a read of the missing
 * events from the store, so nothing is skipped and nothing sent twice. Organization streams read
 * the store by event id, one query per organization however many subscribers it has, woken by
 * the bus: ids grow in commit order (see core/events.ts), so reading "after the last id" is exact.
 */
import { type RecordedEvent, toRecordedEvent } from '../core/events.ts'
import type { Bus } from '../core/ports/bus.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'
import type { StreamHub, StreamSink } from '../core/ports/streams.ts'
import { type EventRow, events } from '../core/store/events.ts'

const TERMINAL = new Set(['run.succeeded', 'run.partial', 'run.failed', 'run.cancelled'])
const PAGE = 1000

interface RunSubscriber {
  organizationId: string
  runId: string
  lastSeq: number
  sink: StreamSink
  filling: boolean
  refill: boolean
  closed: boolean
}

interface OrgSubscriber {
  filter: { workflowId?: string; types?: (type: string) => boolean }
  lastId: number
  sink: StreamSink
  /** While catching up, the feed's deliveries wait here. */
  buffer: RecordedEvent[] | null
}

interface OrgFeed {
  organizationId: string
  cursor: number
  subscribers: Set<OrgSubscriber>
  reading: boolean
  again: boolean
}

export function createStreamHub(deps: { store: Store; bus: Bus; logger: Logger }): StreamHub {
  const runs = new Map<string, Set<RunSubscriber>>()
  const orgs = new Map<string, OrgFeed>()
  let subscription: { unsubscribe(): void } | null = null

  function ensureSubscribed() {
    if (subscription) return
    subscription = deps.bus.subscribe<RecordedEvent>('evt.>', ({ data }) => {
      if (data.runId) for (const sub of runs.get(data.runId) ?? []) onRunEvent(sub, data)
      const feed = orgs.get(data.organizationId)
      if (feed) void readFeed(feed)
    })
  }

  function maybeUnsubscribe() {
    if (runs.size === 0 && orgs.size === 0 && subscription) {
      subscription.unsubscribe()
      subscription = null
    }
  }

  // --- run streams ---------------------------------------------------------------------------

  function deliverRun(sub: RunSubscriber, e: RecordedEvent) {
    if (sub.closed || e.seq === null || e.seq <= sub.lastSeq) return
    sub.lastSeq = e.seq
    sub.sink.send(e)
    if (TERMINAL.has(e.type)) {
      closeRun(sub)
      sub.sink.end()
    }
  }

  function onRunEvent(sub: RunSubscriber, e: RecordedEvent) {
    if (e.organizationId !== sub.organizationId || e.seq === null) return
    if (!sub.filling && e.seq === sub.lastSeq + 1) return deliverRun(sub, e)
    if (e.seq > sub.lastSeq) void fillRun(sub)
  }

  async function fillRun(sub: RunSubscriber) {
    if (sub.filling) {
      sub.refill = true
      return
    }
    sub.filling = true
    try {
      do {
        sub.refill = false
        for (;;) {
          const rows = await events.forRun(deps.store, sub.runId, sub.lastSeq, PAGE)
          for (const row of rows) if (row.organization_id === sub.organizationId) deliverRun(sub, toRecordedEvent(row))
          if (rows.length < PAGE || sub.closed) break
        }
      } while (sub.refill && !sub.closed)
    } catch (error) {
      deps.logger.warn('could not read a run stream from the store', { runId: sub.runId, error: String(error) })
    } finally {
      sub.filling = false
    }
  }

  function closeRun(sub: RunSubscriber) {
    sub.closed = true
    const set = runs.get(sub.runId)
    set?.delete(sub)
    if (set?.size === 0) runs.delete(sub.runId)
    maybeUnsubscribe()
  }

  // --- organization streams -----------------------------------------------------------------

  const matches = (sub: OrgSubscriber, e: RecordedEvent) =>
    (!sub.filter.workflowId || e.workflowId === sub.filter.workflowId) && (!sub.filter.types || sub.filter.types(e.type))

  function deliverOrg(sub: OrgSubscriber, e: RecordedEvent) {
    if (e.id <= sub.lastId) return
    sub.lastId = e.id
    if (matches(sub, e)) sub.sink.send(e)
  }

  async function readFeed(feed: OrgFeed) {
    if (feed.reading) {
      feed.again = true
      return
    }
    feed.reading = true
    try {
      do {
        feed.again = false
        for (;;) {
          const rows = await events.forOrganization(deps.store, feed.organizationId, feed.cursor, PAGE)
          for (const row of rows) {
            const e = toRecordedEvent(row)
            feed.cursor = e.id
            for (const sub of feed.subscribers) {
              if (sub.buffer) sub.buffer.push(e)
              else deliverOrg(sub, e)
            }
          }
          if (rows.length < PAGE) break
        }
      } while (feed.again)
    } catch (error) {
      deps.logger.warn('could not read an organization stream from the store', { organizationId: feed.organizationId, error: String(error) })
    } finally {
      feed.reading = false
    }
  }

  async function latestId(): Promise<number> {
    const row = await deps.store.get<{ id: number | null }>('SELECT MAX(id) AS id FROM events')
    return Number(row?.id ?? 0)
  }

  return {
    async subscribeRun(organizationId, runId, afterSeq, sink) {
      const owner = await deps.store.get<{ organization_id: string }>('SELECT organization_id FROM runs WHERE id = $1', [runId])
      if (owner && owner.organization_id !== organizationId) return null
      const sub: RunSubscriber = { organizationId, runId, lastSeq: afterSeq, sink, filling: false, refill: false, closed: false }
      if (!runs.has(runId)) runs.set(runId, new Set())
      runs.get(runId)!.add(sub)
      ensureSubscribed()
      await fillRun(sub)
      return () => closeRun(sub)
    },

    latestEventId: latestId,

    async subscribeOrganization(organizationId, filter, afterId, sink) {
      const start = afterId
      let feed = orgs.get(organizationId)
      if (!feed) {
        feed = { organizationId, cursor: start, subscribers: new Set(), reading: false, again: false }
        orgs.set(organizationId, feed)
      }
      const sub: OrgSubscriber = { filter, lastId: start, sink, buffer: [] }
      feed.subscribers.add(sub)
      // Subscribed only now that the feed is registered: an unsubscribe racing with the await above
      // cannot leave this subscriber without bus wake-ups.
      ensureSubscribed()
      // Catch up from the store up to where the feed stands; the feed's newer deliveries wait in the buffer.
      const until = feed.cursor
      try {
        while (sub.lastId < until) {
          const rows: EventRow[] = await events.forOrganization(deps.store, organizationId, sub.lastId, PAGE)
          const batch = rows.filter((r) => r.id <= until)
          for (const row of batch) deliverOrg(sub, toRecordedEvent(row))
          if (batch.length < PAGE) break
        }
      } finally {
        for (const e of sub.buffer!.splice(0)) deliverOrg(sub, e)
        sub.buffer = null
      }
      void readFeed(feed)
      return () => {
        feed!.subscribers.delete(sub)
        if (feed!.subscribers.size === 0) orgs.delete(organizationId)
        maybeUnsubscribe()
      }
    },
  }
}
