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
import { type RecordedEvent, recordedEventsOf } from '../core/domain-events.ts'
import type { Bus } from '../core/ports/bus.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'
import type { StreamHub, StreamSink } from '../core/ports/streams.ts'
import { journal } from '../core/store/journal.ts'
import { createOrganizationFeeds, type HalfDeps } from './streams-feeds.ts'
import { PAGE } from './streams-horizon.ts'
import { isTerminalRunEvent } from '../core/domain/run-lifecycle.ts'

export { GAP_WAIT_MS } from './streams-feeds.ts'

interface RunSubscriber {
  organizationId: string
  runId: string
  lastSeq: number
  sink: StreamSink
  filling: boolean
  refill: boolean
  closed: boolean
}

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
          const rows = await journal.rowsOfRun(deps.store, sub.runId, sub.lastSeq, PAGE)
          for (const row of rows)
            if (row.organization_id === sub.organizationId) for (const e of recordedEventsOf(row)) deliver(sub, e)
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
