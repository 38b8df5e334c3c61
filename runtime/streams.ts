/**
 * Stream fan-out. One bus subscription per process (`evt.>`) feeds every stream subscriber.
 *
 * Run streams follow the run's journal sequence: a live event that is not the next number (a
 * message the bus dropped, or a subscriber still catching up) triggers a read of the missing
 * events from the store, so nothing is skipped and nothing sent twice.
 *
 * Organization streams read the store by journal id, one query per organization however many
 * subscribers it has, woken by the bus. Ids increase, but on Postgres transactions commit in any
 * order: id 7 may become visible after id 8. So readers only read up to the *horizon*, the
 * highest id below which every id is visible, and a missing id holds the horizon back until it
 * appears or, after GAP_WAIT_MS, is taken for an insert that was rolled back and never will.
 */
import { type RecordedEvent, toRecordedEvent } from '../core/events.ts'
import type { Bus } from '../core/ports/bus.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'
import type { StreamHub, StreamSink } from '../core/ports/streams.ts'
import { events } from '../core/store/events.ts'

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
}

/** How long a missing journal id is waited for before readers move past it (a rolled-back insert). */
export const GAP_WAIT_MS = 5_000
/** How far back the horizon starts looking for ids still being committed when it starts. */
const START_WINDOW = 1_000

export function createStreamHub(deps: { store: Store; bus: Bus; logger: Logger; gapWaitMs?: number }): StreamHub {
  const gapWaitMs = deps.gapWaitMs ?? GAP_WAIT_MS
  const runs = new Map<string, Set<RunSubscriber>>()
  const orgs = new Map<string, OrgFeed>()
  let subscription: { unsubscribe(): void } | null = null

  function ensureSubscribed() {
    if (subscription) return
    subscription = deps.bus.subscribe<RecordedEvent>('evt.>', ({ data }) => {
      if (data.runId) for (const sub of runs.get(data.runId) ?? []) onRunEvent(sub, data)
      // Another organization's event may be the one the horizon waits for.
      if (orgs.has(data.organizationId) || (gap && orgs.size > 0)) void pump()
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

  // --- the commit horizon -------------------------------------------------------------------

  let horizon: number | null = null
  /** The missing id the horizon waits for, and since when. */
  let gap: { after: number; since: number } | null = null
  let gapTimer: ReturnType<typeof setTimeout> | null = null

  async function startHorizon(): Promise<number> {
    const row = await deps.store.get<{ id: number | null }>('SELECT MAX(id) AS id FROM events')
    // Ids just below the newest may still be committing: start a little back and let them fill in.
    return Math.max(0, Number(row?.id ?? 0) - START_WINDOW)
  }

  /** Moves the horizon over every id now visible, up to the first one still missing. */
  async function advanceHorizon(): Promise<number> {
    let at = horizon ?? (await startHorizon())
    for (;;) {
      const rows = await deps.store.all<{ id: number }>('SELECT id FROM events WHERE id > $1 ORDER BY id LIMIT $2', [at, PAGE])
      let blocked = false
      for (const row of rows) {
        const id = Number(row.id)
        if (id !== at + 1) {
          const now = Date.now()
          if (gap?.after !== at) gap = { after: at, since: now }
          if (now - gap.since < gapWaitMs) {
            blocked = true
            wakeAfterGap(gap.since + gapWaitMs - now)
            break
          }
        }
        at = id
        gap = null
      }
      if (blocked || rows.length < PAGE) break
    }
    horizon = at
    return at
  }

  function wakeAfterGap(ms: number) {
    if (gapTimer) return
    gapTimer = setTimeout(() => {
      gapTimer = null
      if (orgs.size > 0) pump()
    }, ms + 1)
  }

  // --- organization streams -----------------------------------------------------------------

  const matches = (sub: OrgSubscriber, e: RecordedEvent) =>
    (!sub.filter.workflowId || e.workflowId === sub.filter.workflowId) && (!sub.filter.types || sub.filter.types(e.type))

  function deliverOrg(sub: OrgSubscriber, e: RecordedEvent) {
    if (e.id <= sub.lastId) return
    sub.lastId = e.id
    if (matches(sub, e)) sub.sink.send(e)
  }

  /** An organization's events in (after, until], page by page. */
  async function* readOrganization(organizationId: string, after: number, until: number) {
    for (;;) {
      const rows = await events.forOrganization(deps.store, organizationId, after, PAGE)
      for (const row of rows) {
        if (row.id > until) return
        after = row.id
        yield toRecordedEvent(row)
      }
      if (rows.length < PAGE) return
    }
  }

  async function readFeed(feed: OrgFeed, until: number) {
    for await (const e of readOrganization(feed.organizationId, feed.cursor, until)) {
      feed.cursor = e.id
      for (const sub of feed.subscribers) {
        if (sub.buffer) sub.buffer.push(e)
        else deliverOrg(sub, e)
      }
    }
    feed.cursor = Math.max(feed.cursor, until)
  }

  // One pump at a time moves the horizon and then every feed up to it; wake-ups meanwhile are
  // coalesced into one more round.
  let pumping = false
  let again = false
  async function pump() {
    if (pumping) {
      again = true
      return
    }
    pumping = true
    try {
      do {
        again = false
        const until = await advanceHorizon()
        await Promise.all(
          [...orgs.values()].map((feed) =>
            feed.cursor < until
              ? readFeed(feed, until).catch((error) =>
                  deps.logger.warn('could not read an organization stream from the store', { organizationId: feed.organizationId, error: String(error) }),
                )
              : undefined,
          ),
        )
      } while (again && orgs.size > 0)
    } catch (error) {
      deps.logger.warn('could not read the event journal', { error: String(error) })
    } finally {
      pumping = false
    }
  }

  function stopHorizon() {
    horizon = null
    gap = null
    if (gapTimer) clearTimeout(gapTimer)
    gapTimer = null
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

    async latestEventId() {
      // Without open organization streams the horizon is not kept moving: find it afresh.
      if (orgs.size === 0) stopHorizon()
      return advanceHorizon()
    },

    async subscribeOrganization(organizationId, filter, afterId, sink) {
      let feed = orgs.get(organizationId)
      if (!feed) {
        feed = { organizationId, cursor: Math.max(afterId, horizon ?? 0), subscribers: new Set() }
        orgs.set(organizationId, feed)
      }
      const sub: OrgSubscriber = { filter, lastId: afterId, sink, buffer: [] }
      feed.subscribers.add(sub)
      // Subscribed only now that the feed is registered: an unsubscribe racing with the await above
      // cannot leave this subscriber without bus wake-ups.
      ensureSubscribed()
      // Catch up from the store up to where the feed stands; the feed's newer deliveries wait in the buffer.
      try {
        for await (const e of readOrganization(organizationId, sub.lastId, feed.cursor)) deliverOrg(sub, e)
      } finally {
        for (const e of sub.buffer!.splice(0)) deliverOrg(sub, e)
        sub.buffer = null
      }
      void pump()
      return () => {
        feed!.subscribers.delete(sub)
        if (feed!.subscribers.size === 0) orgs.delete(organizationId)
        if (orgs.size === 0) stopHorizon()
        maybeUnsubscribe()
      }
    },
  }
}
