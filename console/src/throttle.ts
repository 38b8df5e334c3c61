/**
 * A throttle for work that news asks for (reading a list again when a stream tells of a change):
 * news arriving together is served by one call, calls are at least `gapMs` apart however steady
 * the news, and news is never left waiting longer than the larger of `settleMs` and `gapMs`.
 * (A debounce that starts its wait again on every piece of news never calls while news keeps coming.)
 */

/** The clock and timers a throttle uses: the browser's, or a test's. */
export interface Timers {
  now(): number
  set(run: () => void, ms: number): unknown
  clear(handle: unknown): void
}

export const browserTimers: Timers = {
  now: () => Date.now(),
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

export interface Throttled {
  /** Says there is news: `run` will be called once for it and for any news until then. */
  (): void
  /** Forgets the news not yet served; no call follows. */
  cancel(): void
}

/**
 * Wraps `run`: after news it waits `settleMs` (so news arriving together is served once), or
 * longer if needed to keep `gapMs` since the previous call; news during the wait joins it.
 */
export function throttle(
  run: () => void,
  { settleMs, gapMs }: { settleMs: number; gapMs: number },
  timers: Timers = browserTimers,
): Throttled {
  let pending: unknown = null
  let last = Number.NEGATIVE_INFINITY
  const fire = () => {
    pending = null
    last = timers.now()
    run()
  }
  const throttled = () => {
    if (pending !== null) return
    pending = timers.set(fire, Math.max(settleMs, last + gapMs - timers.now()))
  }
  throttled.cancel = () => {
    if (pending !== null) timers.clear(pending)
    pending = null
  }
  return throttled
}
