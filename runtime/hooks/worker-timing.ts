/**
 * The delivery worker's bookkeeping apart from claiming and sending: the rows the outbox handed
 * over ahead of their event's publication, and the timer that wakes the worker for a retry it
 * scheduled.
 */
import type { Clock } from '../../core/ports/clock.ts'
import type { NewDelivery } from '../../core/store/hook-deliveries.ts'

/**
 * Rows the outbox leased to this worker, by the journal id of their event: sent once it is
 * published. An entry whose event is never published (its transaction rolled back) is dropped
 * after a while; were it committed after all, its lease would simply run out.
 */
export interface HandOvers {
  /** How many rows wait for their event; they count against the worker's concurrency. */
  readonly rows: number
  has(eventId: number): boolean
  /** Holds `rows` until the event `eventId` is published (replacing what it held for it). */
  expect(eventId: number, rows: readonly NewDelivery[]): void
  /** The rows held for a published event, no longer held. */
  take(eventId: number): readonly NewDelivery[]
  /** Drops the entries held longer than the stale age. */
  dropStale(): void
  clear(): void
}

export function createHandOvers(clock: Clock, staleMs: number): HandOvers {
  const handedOver = new Map<number, { rows: readonly NewDelivery[]; at: number }>()
  let rows = 0
  return {
    get rows() {
      return rows
    },
    has: (eventId) => handedOver.has(eventId),
    expect(eventId, list) {
      const previous = handedOver.get(eventId)
      if (previous) rows -= previous.rows.length
      handedOver.set(eventId, { rows: list, at: clock.now() })
      rows += list.length
    },
    take(eventId) {
      const entry = handedOver.get(eventId)!
      handedOver.delete(eventId)
      rows -= entry.rows.length
      return entry.rows
    },
    dropStale() {
      const old = clock.now() - staleMs
      for (const [eventId, entry] of handedOver) {
        if (entry.at >= old) continue
        handedOver.delete(eventId)
        rows -= entry.rows.length
      }
    },
    clear() {
      handedOver.clear()
      rows = 0
    },
  }
}

/** Wakes the worker for a retry it scheduled, so short schedules do not wait for the poll. */
export interface RetryAlarm {
  /** Wakes at `at` unless an earlier wake-up is set. */
  at(at: number): void
  clear(): void
}

export function createRetryAlarm(deps: { clock: Clock; wake(): void; stopped(): boolean }): RetryAlarm {
  let retryTimer: ReturnType<typeof setTimeout> | null = null
  let retryAt = Number.POSITIVE_INFINITY
  return {
    at(at) {
      if (deps.stopped() || at >= retryAt) return
      retryAt = at
      if (retryTimer) clearTimeout(retryTimer)
      retryTimer = setTimeout(
        () => {
          retryTimer = null
          retryAt = Number.POSITIVE_INFINITY
          deps.wake()
        },
        Math.max(0, at - deps.clock.now()),
      )
      unref(retryTimer)
    },
    clear() {
      if (retryTimer) clearTimeout(retryTimer)
    },
  }
}

export function unref(timer: unknown) {
  ;(timer as { unref?: () => void }).unref?.()
}
