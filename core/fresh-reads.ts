/**
 * Reads of values that are kept a moment (`freshMs`) and shared: one read at a time per key for
 * everyone who asks meanwhile, and, while a value is in use, a read again in the background from
 * half its freshness on, so that callers checking it (`fresh`) do not find it stale and wait.
 *
 * "In use" covers pauses: a busy process can go a few seconds without asking (its runs wait for a
 * write batch, say), and a value that expired meanwhile would make every run that asks next wait
 * for the same read. So a busy key (asked `HOT_ASKS` times within one freshness) is also read
 * again on a timer every half freshness, until it has not been asked for in `keepWarmMs` (ten
 * freshnesses by default). A key asked now and then is read only when asked, as before. Nothing
 * stale is ever answered.
 */
import { BoundedMap } from './bounded-map.ts'
import type { Clock } from './ports/clock.ts'

/** Asks within one freshness that make a key busy enough to keep warm. */
const HOT_ASKS = 10

export interface FreshReads<V> {
  /** The read in flight for `key`, or a new one. */
  read(key: string): Promise<V>
  /** Whether a value read at `readAt` is still fresh; from half its freshness on, reads it again in the background. */
  fresh(key: string, readAt: number): boolean
  /** Drops the read in flight for `key` (its result is no longer wanted). */
  forget(key: string): void
}

export function createFreshReads<V>(deps: { clock: Clock; freshMs: number; load: (key: string) => Promise<V>; keepWarmMs?: number }): FreshReads<V> {
  const loading = new Map<string, Promise<V>>()
  const keepWarmMs = deps.keepWarmMs ?? deps.freshMs * 10
  /** How each key was asked for lately (the system's time): the last ask, the asks of the current freshness, and whether a timer keeps it warm. */
  const uses = new BoundedMap<string, { last: number; since: number; count: number; warm: boolean }>(10_000)
  /** When each warm key's last read ended (the system's time). */
  const readEnded = new Map<string, number>()

  function asked(key: string) {
    const now = performance.now()
    let use = uses.get(key)
    if (!use) uses.set(key, (use = { last: now, since: now, count: 0, warm: false }))
    if (now - use.since >= deps.freshMs) {
      use.since = now
      use.count = 0
    }
    use.last = now
    if (++use.count >= HOT_ASKS && !use.warm) {
      use.warm = true
      keepWarm(key)
    }
  }

  /** Reads `key` again every half freshness until it has not been asked for in keepWarmMs. */
  function keepWarm(key: string) {
    const tick = () => {
      const now = performance.now()
      const use = uses.get(key)
      if (!use || now - use.last > keepWarmMs) {
        if (use) use.warm = false
        readEnded.delete(key)
        return
      }
      // A read that callers started (or one in flight) may have just refreshed it.
      if (loading.has(key) || now - (readEnded.get(key) ?? -Infinity) < deps.freshMs / 2) return later()
      read(key).catch(() => {}).finally(later)
    }
    // Timers that never keep the process alive.
    const later = () => (setTimeout(tick, deps.freshMs / 2) as { unref?: () => void }).unref?.()
    later()
  }

  function read(key: string): Promise<V> {
    let pending = loading.get(key)
    if (!pending) {
      const started = deps.load(key).finally(() => {
        if (uses.get(key)?.warm) readEnded.set(key, performance.now())
        if (loading.get(key) === started) loading.delete(key)
      })
      pending = started
      loading.set(key, started)
    }
    return pending
  }
  return {
    read,
    fresh(key, readAt) {
      asked(key)
      const age = deps.clock.now() - readAt
      // The background read's failure is the next caller's to see: it finds the value stale.
      if (age >= deps.freshMs / 2 && !loading.has(key)) read(key).catch(() => {})
      return age < deps.freshMs
    },
    forget(key) {
      loading.delete(key)
    },
  }
}
