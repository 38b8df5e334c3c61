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
 * appears or every transaction that could hold it has ended (it was rolled back and never will).
 * Where that cannot be asked, GAP_WAIT_MS bounds the wait.
 *
 * These waits are on the system's time, not the engine's Clock: they measure how long a database
 * transaction has been open, which a test clock (stopped, or moved by hours) must not change.
 */
import { runs as runRows } from '../core/store/runs.ts'
import { type RecordedEvent, toRecordedEvent } from '../core/events.ts'
import type { Bus } from '../core/ports/bus.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'
import type { StreamHub, StreamSink } from '../core/ports/streams.ts'
import { events } from '../core/store/events.ts'
import { isTerminalRunEvent } from '../core/domain/run-lifecycle.ts'

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
export const GAP_WAIT_MS = 30_000
/** How long after noticing a gap the writers in flight are marked. */
const MARK_DELAY_MS = 20
/** How long opening a stream waits for the gaps below the newest id to settle. */
const START_SETTLE_MS = 1_000
/** How often an open gap asks whether its writers have finished. */
const SETTLE_POLL_MS = 50
/** How far back the horizon starts looking for ids still being committed when it starts. */
const START_WINDOW = 1_000

/**
 * The hub: one bus subscription (taken while anyone listens) feeding both halves, run streams
 * and organization feeds, which know nothing of each other.
 */
export function createStreamHub(deps: { store: Store; bus: Bus; logger: Logger; gapWaitMs?: number }): StreamHub {
  let subscription: { unsubscribe(): void } | null = null
  const listening = () => {
    if (subscription) return
    subscription = deps.bus.subscribe<RecordedEvent>('evt.>', ({ data }) => {
      runStreams.onEvent(data)
      feeds.onEvent(data)
    })
  }
  const idle = () => {
    if (runStreams.size === 0 && feeds.size === 0 && subscription) {
      subscription.unsubscribe()
      subscription = null
    }
  }
  const runStreams = createRunStreams({ store: deps.store, logger: deps.logger, listening, idle })
  const feeds = createOrganizationFeeds({
    store: deps.store,
    logger: deps.logger,
    gapWaitMs: deps.gapWaitMs,
    listening,
    idle,
  })
  return {
    subscribeRun: runStreams.subscribe,
    latestEventId: feeds.latestEventId,
    subscribeOrganization: feeds.subscribe,
  }
}

interface HalfDeps {
  store: Store
  logger: Logger
  /** Called when a subscriber arrives: the bus must be listened to. */
  listening(): void
  /** Called when a subscriber leaves: the bus may be let go. */
  idle(): void
}

/** Run streams: each follows one run's journal by sequence, filling gaps from the store. */
function createRunStreams(deps: HalfDeps) {
  const runs = new Map<string, Set<RunSubscriber>>()

  function deliver(sub: RunSubscriber, e: RecordedEvent) {
    if (sub.closed || e.seq === null || e.seq <= sub.lastSeq) return
    sub.lastSeq = e.seq
    sub.sink.send(e)
    if (isTerminalRunEvent(e.type)) {
      close(sub)
      sub.sink.end()
    }
  }

  function onRunEvent(sub: RunSubscriber, e: RecordedEvent) {
    if (e.organizationId !== sub.organizationId || e.seq === null) return
    if (!sub.filling && e.seq === sub.lastSeq + 1) return deliver(sub, e)
    if (e.seq > sub.lastSeq) void fill(sub)
  }

  async function fill(sub: RunSubscriber) {
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
          for (const row of rows) if (row.organization_id === sub.organizationId) deliver(sub, toRecordedEvent(row))
          if (rows.length < PAGE || sub.closed) break
        }
      } while (sub.refill && !sub.closed)
    } catch (error) {
      deps.logger.warn('could not read a run stream from the store', { runId: sub.runId, error: String(error) })
    } finally {
      sub.filling = false
    }
  }

  function close(sub: RunSubscriber) {
    sub.closed = true
    const set = runs.get(sub.runId)
    set?.delete(sub)
    if (set?.size === 0) runs.delete(sub.runId)
    deps.idle()
  }

  return {
    get size() {
      return runs.size
    },
    onEvent(e: RecordedEvent) {
      if (e.runId) for (const sub of runs.get(e.runId) ?? []) onRunEvent(sub, e)
    },
    async subscribe(organizationId: string, runId: string, afterSeq: number, sink: StreamSink) {
      const owner = await runRows.ownerOf(deps.store, runId)
      if (owner && owner.organization_id !== organizationId) return null
      const sub: RunSubscriber = {
        organizationId,
        runId,
        lastSeq: afterSeq,
        sink,
        filling: false,
        refill: false,
        closed: false,
      }
      if (!runs.has(runId)) runs.set(runId, new Set())
      runs.get(runId)!.add(sub)
      deps.listening()
      await fill(sub)
      return () => close(sub)
    },
  }
}

/** Organization feeds: one store reader per organization, up to the commit horizon, woken by the bus. */
function createOrganizationFeeds(deps: HalfDeps & { gapWaitMs?: number }) {
  const gapWaitMs = deps.gapWaitMs ?? GAP_WAIT_MS
  const orgs = new Map<string, OrgFeed>()
  // --- the commit horizon -------------------------------------------------------------------

  let horizon: number | null = null
  /** The missing id the horizon waits for: since when, the newest id seen then, and the writers' mark. */
  let gap: { after: number; since: number; seen: number; mark?: string | null } | null = null
  /** Missing ids at or below this will never appear: every writer that could hold one has finished. */
  let settledThrough = 0
  let gapTimer: ReturnType<typeof setTimeout> | null = null

  async function startHorizon(): Promise<number> {
    // Ids just below the newest may still be committing: start a little back and let them fill in.
    return Math.max(0, (await events.maxId(deps.store)) - START_WINDOW)
  }

  /**
   * Moves the horizon over every id now visible, up to the first one still missing. A missing id
   * is passed once the writers that were in flight when it was noticed have all finished (it was
   * rolled back), or after the gap wait if that cannot be told.
   */
  async function advanceHorizon(): Promise<number> {
    let at = horizon ?? (await startHorizon())
    for (;;) {
      const rows = await events.idsAfter(deps.store, at, PAGE)
      let blocked = false
      for (const id of rows) {
        if (id !== at + 1 && id - 1 > settledThrough) {
          const now = Date.now()
          if (gap?.after !== at) gap = { after: at, since: now, seen: rows[rows.length - 1] }
          if (now - gap.since < gapWaitMs) {
            blocked = true
            break
          }
        }
        at = id
        gap = null
      }
      if (blocked && gap && (await settled(gap))) continue
      if (blocked || rows.length < PAGE) break
    }
    horizon = at
    return at
  }

  /**
   * Whether the gap's missing ids are gone for good. Each was taken before the newest id seen
   * when the gap was noticed became visible, so by a transaction in flight then: once a mark of
   * the writers taken a moment later (the moment covers a transaction between taking an id and
   * getting its transaction id) says all of them ended, an id still missing will never appear.
   */
  async function settled(g: NonNullable<typeof gap>): Promise<boolean> {
    try {
      const now = Date.now()
      if (g.mark === undefined) {
        if (now - g.since < MARK_DELAY_MS) {
          wakeAfterGap(g.since + MARK_DELAY_MS - now)
          return false
        }
        g.mark = await events.writersMark(deps.store)
      }
      if (await events.writersDone(deps.store, g.mark)) {
        settledThrough = Math.max(settledThrough, g.seen)
        return true
      }
    } catch (error) {
      deps.logger.warn('could not tell whether journal writers finished; waiting out the gap', { error: String(error) })
    }
    wakeAfterGap(Math.min(SETTLE_POLL_MS, Math.max(0, g.since + gapWaitMs - Date.now())))
    return false
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
    (!sub.filter.workflowId || e.workflowId === sub.filter.workflowId) &&
    (!sub.filter.types || sub.filter.types(e.type))

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
                  deps.logger.warn('could not read an organization stream from the store', {
                    organizationId: feed.organizationId,
                    error: String(error),
                  }),
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
    settledThrough = 0
    if (gapTimer) clearTimeout(gapTimer)
    gapTimer = null
  }

  return {
    get size() {
      return orgs.size
    },
    onEvent(e: RecordedEvent) {
      // Another organization's event may be the one the horizon waits for.
      if (orgs.has(e.organizationId) || (gap && orgs.size > 0)) void pump()
    },

    async latestEventId() {
      // Without open organization streams the horizon is not kept moving: find it afresh.
      if (orgs.size === 0) stopHorizon()
      // Ids missing for good (rolled back, or pruned) are settled in a moment; a writer that stays
      // open longer than START_SETTLE_MS only means the stream starts a little earlier.
      const giveUp = Date.now() + START_SETTLE_MS
      for (;;) {
        const at = await advanceHorizon()
        if (!gap || Date.now() >= giveUp) return at
        await new Promise((r) => setTimeout(r, MARK_DELAY_MS))
      }
    },

    async subscribe(organizationId: string, filter: OrgSubscriber['filter'], afterId: number, sink: StreamSink) {
      let feed = orgs.get(organizationId)
      if (!feed) {
        feed = { organizationId, cursor: Math.max(afterId, horizon ?? 0), subscribers: new Set() }
        orgs.set(organizationId, feed)
      }
      const sub: OrgSubscriber = { filter, lastId: afterId, sink, buffer: [] }
      feed.subscribers.add(sub)
      // Listened to only now that the feed is registered: an unsubscribe racing with the await above
      // cannot leave this subscriber without bus wake-ups.
      deps.listening()
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
        deps.idle()
      }
    },
  }
}
