/**
 * Organization feeds: one store reader per organization, up to the commit horizon
 * (streams-horizon.ts), woken by the bus. A new subscriber catches up from the store to where
 * its feed stands while the feed's newer deliveries wait in its buffer.
 */
import { type RecordedEvent, recordedEventsOf } from '../core/domain-events.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'
import type { StreamSink } from '../core/ports/streams.ts'
import { journal } from '../core/store/journal.ts'
import { createCommitHorizon, MARK_DELAY_MS, PAGE } from './streams-horizon.ts'

/** How long a missing journal id is waited for before readers move past it (a rolled-back insert). */
export const GAP_WAIT_MS = 30_000
/** How long opening a stream waits for the gaps below the newest id to settle. */
const START_SETTLE_MS = 1_000

/** What each half of the stream hub is given. */
export interface HalfDeps {
  store: Store
  logger: Logger
  /** Called when a subscriber arrives: the bus must be listened to. */
  listening(): void
  /** Called when a subscriber leaves: the bus may be let go. */
  idle(): void
}

export interface OrgFilter {
  workflowId?: string
  types?: (type: string) => boolean
}

/** The organization half of the stream hub. */
export interface OrganizationFeeds {
  /** Organizations with an open stream. */
  readonly size: number
  /** A journal event seen on the bus: the feeds it may concern read again. */
  onEvent(e: RecordedEvent): void
  /** The journal id a new stream starts after. */
  latestEventId(): Promise<number>
  /** Streams an organization's events after `afterId`; resolves to the unsubscribe function. */
  subscribe(organizationId: string, filter: OrgFilter, afterId: number, sink: StreamSink): Promise<() => void>
}

interface OrgSubscriber {
  filter: OrgFilter
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

export function createOrganizationFeeds(deps: HalfDeps & { gapWaitMs?: number }): OrganizationFeeds {
  const orgs = new Map<string, OrgFeed>()
  const horizon = createCommitHorizon({
    store: deps.store,
    logger: deps.logger,
    gapWaitMs: deps.gapWaitMs ?? GAP_WAIT_MS,
    wake: () => {
      if (orgs.size > 0) pump()
    },
  })

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
        const until = await horizon.advance()
        await Promise.all([...orgs.values()].map((feed) => (feed.cursor < until ? readFeed(feed, until) : undefined)))
      } while (again && orgs.size > 0)
    } catch (error) {
      deps.logger.warn('could not read the event journal', { error: String(error) })
    } finally {
      pumping = false
    }
  }

  function readFeed(feed: OrgFeed, until: number): Promise<void> {
    return advanceFeed(deps.store, feed, until).catch((error) =>
      deps.logger.warn('could not read an organization stream from the store', {
        organizationId: feed.organizationId,
        error: String(error),
      }),
    )
  }

  async function subscribe(organizationId: string, filter: OrgFilter, afterId: number, sink: StreamSink) {
    let feed = orgs.get(organizationId)
    if (!feed) {
      feed = { organizationId, cursor: Math.max(afterId, horizon.position ?? 0), subscribers: new Set() }
      orgs.set(organizationId, feed)
    }
    const sub: OrgSubscriber = { filter, lastId: afterId, sink, buffer: [] }
    feed.subscribers.add(sub)
    // Listened to only now that the feed is registered: an unsubscribe racing with the await above
    // cannot leave this subscriber without bus wake-ups.
    deps.listening()
    // Catch up from the store up to where the feed stands; the feed's newer deliveries wait in the buffer.
    try {
      for await (const e of readOrganization(deps.store, organizationId, sub.lastId, feed.cursor)) deliver(sub, e)
    } finally {
      for (const e of sub.buffer!.splice(0)) deliver(sub, e)
      sub.buffer = null
    }
    void pump()
    return () => {
      feed!.subscribers.delete(sub)
      if (feed!.subscribers.size === 0) orgs.delete(organizationId)
      if (orgs.size === 0) horizon.stop()
      deps.idle()
    }
  }

  return {
    get size() {
      return orgs.size
    },
    onEvent(e: RecordedEvent) {
      // Another organization's event may be the one the horizon waits for.
      if (orgs.has(e.organizationId) || (horizon.waiting && orgs.size > 0)) void pump()
    },
    async latestEventId() {
      // Without open organization streams the horizon is not kept moving: find it afresh.
      if (orgs.size === 0) horizon.stop()
      // Ids missing for good (rolled back, or pruned) are settled in a moment; a writer that stays
      // open longer than START_SETTLE_MS only means the stream starts a little earlier.
      const giveUp = Date.now() + START_SETTLE_MS
      for (;;) {
        const at = await horizon.advance()
        if (!horizon.waiting || Date.now() >= giveUp) return at
        await new Promise((r) => setTimeout(r, MARK_DELAY_MS))
      }
    },
    subscribe,
  }
}

const matches = (sub: OrgSubscriber, e: RecordedEvent) =>
  (!sub.filter.workflowId || e.workflowId === sub.filter.workflowId) && (!sub.filter.types || sub.filter.types(e.type))

function deliver(sub: OrgSubscriber, e: RecordedEvent) {
  if (e.id <= sub.lastId) return
  sub.lastId = e.id
  if (matches(sub, e)) sub.sink.send(e)
}

/** An organization's events in (after, until], page by page (a journal row may hold several). */
async function* readOrganization(store: Store, organizationId: string, after: number, until: number) {
  for (;;) {
    const rows = await journal.rowsOfOrganization(store, organizationId, after, PAGE)
    for (const row of rows) {
      for (const e of recordedEventsOf(row)) {
        if (e.id <= after) continue
        if (e.id > until) return
        after = e.id
        yield e
      }
    }
    if (rows.length < PAGE) return
  }
}

/** Reads a feed up to `until`, handing each event to its subscribers (buffered while they catch up). */
async function advanceFeed(store: Store, feed: OrgFeed, until: number) {
  for await (const e of readOrganization(store, feed.organizationId, feed.cursor, until)) {
    feed.cursor = e.id
    for (const sub of feed.subscribers) {
      if (sub.buffer) sub.buffer.push(e)
      else deliver(sub, e)
    }
  }
  feed.cursor = Math.max(feed.cursor, until)
}
