/**
 * Reads of values that are kept a moment (`freshMs`) and shared: one read at a time per key for
 * everyone who asks meanwhile, and, while a value is in use, a read again in the background from
 * half its freshness on, so that callers checking it (`fresh`) do not find it stale and wait.
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

export function createFreshReads<V>(deps: { clock: Clock; freshMs: number; load: (key: string) => Promise<V> }): FreshReads<V> {
  const loading = new Map<string, Promise<V>>()
  function read(key: string): Promise<V> {
    let pending = loading.get(key)
    if (!pending) {
      const started = deps.load(key).finally(() => {
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
