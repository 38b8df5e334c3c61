/**
 * How many runs the executor keeps going at once. The executor shares its event loop with the
 * HTTP server that answers triggers and the API: when runs take all of the loop, every answer
 * waits behind them, and under overload the answers slow down for everybody instead of the
 * backlog filling up and the excess being refused at once. So the executor watches the loop's
 * lag (how late a 10 ms timer fires) and adjusts the number of runs it keeps going the way TCP
 * adjusts its window: a quarter fewer after a tenth of a second in which the lag passed the
 * target, a tenth more (at least one) after one in which it stayed under half of it, between an
 * eighth of the configured concurrency and all of it. Runs that are not started wait in the
 * backlog, which is bounded and answers 429 when full; nothing is dropped.
 *
 * A loop that is not busy never lags, so a process that waits on slow nodes (HTTP calls, a
 * distant database) keeps its full concurrency.
 */
export interface ConcurrencyLimit {
  /** Runs to keep going at once now. */
  current(): number
  /** The largest lag in the last full window, in milliseconds. */
  lagMs(): number
  stop(): void
}

const TICK_MS = 10
const WINDOW_MS = 100

/** The time and the repeating timer the loop's lag is measured with: a test may drive them by hand. */
export interface LagTicker {
  /** Milliseconds on a monotonic clock. */
  now(): number
  /** Calls `tick` every `ms` until the returned function is called; never keeps the process alive. */
  every(ms: number, tick: () => void): () => void
}

/** The system's monotonic time and its timers. */
export const systemTicker: LagTicker = Object.freeze({
  now: () => performance.now(),
  every(ms: number, tick: () => void) {
    const timer = setInterval(tick, ms)
    ;(timer as { unref?: () => void }).unref?.()
    return () => clearInterval(timer)
  },
})

export function adaptiveConcurrency(options: {
  readonly max: number
  /** 0 keeps the limit at `max`. */
  readonly targetLagMs: number
  /** Called when the limit rises, so that waiting runs can start. */
  readonly onRaise: () => void
  /** The system's by default. */
  readonly ticker?: LagTicker
}): ConcurrencyLimit {
  const { max, targetLagMs } = options
  if (targetLagMs <= 0) return { current: () => max, lagMs: () => 0, stop() {} }
  const ticker = options.ticker ?? systemTicker
  const now = () => ticker.now()
  const min = Math.max(1, Math.ceil(max / 8))
  let limit = max
  let windowStart = now()
  let windowLag = 0
  let lastLag = 0
  let expected = now() + TICK_MS
  const stop = ticker.every(TICK_MS, () => {
    const at = now()
    windowLag = Math.max(windowLag, at - expected)
    expected = at + TICK_MS
    if (at - windowStart < WINDOW_MS) return
    lastLag = windowLag
    windowStart = at
    windowLag = 0
    if (lastLag > targetLagMs) {
      limit = Math.max(min, Math.floor(limit * 0.75))
    } else if (lastLag <= targetLagMs / 2 && limit < max) {
      limit = Math.min(max, limit + Math.max(1, Math.ceil(limit * 0.1)))
      options.onRaise()
    }
  })
  return {
    current: () => limit,
    lagMs: () => Math.round(lastLag * 10) / 10,
    stop,
  }
}
