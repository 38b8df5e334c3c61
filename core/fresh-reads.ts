/**
 * Reads of values that are kept a moment (`freshMs`) and shared: one read at a time per key for
 * everyone who asks meanwhile, and, while a value is in use, a read again in the background from
 * half its freshness on, so that callers checking it (`fresh`) do not find it stale and wait.
 *
 * "In use" covers pauses: a busy process can go a few seconds without asking (its runs wait for a
 * write batch, say), and a value that expired meanwhile would make every run that asks next wait
 * for the same read. So a value asked for in the last `keepWarmMs` (ten freshnesses by default) is
 * also read again on a timer, every half freshness. Nothing stale is ever answered.
 */
import type { Clock } from './ports/clock.ts'

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
  /** Keys asked for lately (the system's time of the last ask), each with its timer of reads. */
  const asked = new Map<string, number>()
  /** When each key's last read ended (the system's time). */
  const readEnded = new Map<string, number>()

  /** Reads `key` again every half freshness until it has not been asked for in keepWarmMs. */
  function keepWarm(key: string) {
    const tick = () => {
      const now = performance.now()
      if (now - (asked.get(key) ?? -Infinity) > keepWarmMs) {
        asked.delete(key)
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
        if (asked.has(key)) readEnded.set(key, performance.now())
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
      const first = !asked.has(key)
      asked.set(key, performance.now())
      if (first) keepWarm(key)
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
