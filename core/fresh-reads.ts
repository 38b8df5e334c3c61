/**
 * Values read from the store and kept a moment (`freshMs`), per key: one read at a time per key
 * for everyone who asks meanwhile, and, while a value is in use, a read again in the background
 * from half its freshness on, so that callers peeking at it do not find it stale and wait.
 *
 * "In use" covers pauses: a busy process can go a few seconds without asking (its runs wait for a
 * write batch, say), and a value that expired meanwhile would make every run that asks next wait
 * for the same read. So a busy key (asked `HOT_ASKS` times within one freshness) is also read
 * again on a timer every half freshness, until it has not been asked for in `keepWarmMs` (ten
 * freshnesses by default). A key asked now and then is read only when asked, as before. Nothing
 * stale is ever answered.
 */
import { BoundedMap } from './bounded-map.ts'
import { type Clock, systemClock } from './ports/clock.ts'

/** Asks within one freshness that make a key busy enough to keep warm. */
const HOT_ASKS = 10

export interface FreshReads<V> {
  /** The value of `key` while it is fresh, else undefined; from half its freshness on, reads it again in the background. */
  peek(key: string): V | undefined
  /** The read of `key` in flight, or a new one. */
  read(key: string): Promise<V>
  /** Forgets `key`'s value (it changed here); reads in flight keep nothing of what they read. */
  forget(key: string): void
}

/**
 * `load` reads a key's value; `previous` is the one kept before, if any (a load may reuse it).
 * Ages, asks and the keep-warm timer all follow `clock`: on the system's clock the timer never keeps
 * the process alive; a test's clock that can wait (a manual one) is waited on instead.
 */
export function createFreshReads<V>(deps: {
  clock: Clock
  freshMs: number
  load: (key: string, previous: V | undefined) => Promise<V>
  keepWarmMs?: number
}): FreshReads<V> {
  const kept = new BoundedMap<string, { value: V; readAt: number }>(10_000)
  const loading = new Map<string, Promise<V>>()
  /** Bumped by `forget`: a read that began before it does not keep what it read. */
  let generation = 0
  const keepWarmMs = deps.keepWarmMs ?? deps.freshMs * 10
  /** How each key was asked for lately (the clock's time): the last ask, the asks of the current freshness, and whether a timer keeps it warm. */
  const uses = new BoundedMap<string, { last: number; since: number; count: number; warm: boolean }>(10_000)
  const ageOf = (key: string) => deps.clock.now() - (kept.get(key)?.readAt ?? -Infinity)

  function read(key: string): Promise<V> {
    let pending = loading.get(key)
    if (!pending) {
      const began = generation
      const started = deps
        .load(key, kept.get(key)?.value)
        .then((value) => {
          if (began === generation) kept.set(key, { value, readAt: deps.clock.now() })
          return value
        })
        .finally(() => {
          if (loading.get(key) === started) loading.delete(key)
        })
      pending = started
      loading.set(key, started)
    }
    return pending
  }

  function asked(key: string) {
    const now = deps.clock.now()
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
      const use = uses.get(key)
      if (!use || deps.clock.now() - use.last > keepWarmMs) {
        if (use) use.warm = false
        return
      }
      // A read that callers started (or one in flight) may have just refreshed it.
      if (loading.has(key) || ageOf(key) < deps.freshMs / 2) return later()
      read(key)
        .catch(() => {})
        .finally(later)
    }
    const later = () => after(deps.freshMs / 2, tick)
    later()
  }

  /** Calls `then` once `ms` of the clock's time has passed: the system's timers never keep the process alive. */
  function after(ms: number, then: () => void) {
    if (deps.clock.sleep && deps.clock !== systemClock) deps.clock.sleep(ms).then(then, () => {})
    else (setTimeout(then, ms) as { unref?: () => void }).unref?.()
  }

  function peek(key: string): V | undefined {
    asked(key)
    const age = ageOf(key)
    // The background read's failure is the next caller's to see: it finds the value stale.
    if (age >= deps.freshMs / 2 && age !== Infinity && !loading.has(key)) read(key).catch(() => {})
    return age < deps.freshMs ? kept.get(key)!.value : undefined
  }

  return {
    peek,
    read,
    forget(key) {
      generation++
      kept.delete(key)
      loading.delete(key)
    },
  }
}
