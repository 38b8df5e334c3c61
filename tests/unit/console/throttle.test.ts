/**
 * The console's throttle, which reads the editor's run list again as the workflow's run stream
 * brings news: news arriving together is served once, and steady news is served at a steady
 * pace instead of never (as a debounce restarting on every event would). Timers are a test's own.
 */
import { describe, expect, it } from 'bun:test'
import { type Timers, throttle } from '../../../console/src/throttle.ts'

/** Timers that fire only when the test moves time forward. */
function manualTimers() {
  let now = 0
  let next = 0
  const due = new Map<number, { at: number; run: () => void }>()
  const timers: Timers = {
    now: () => now,
    set(run, ms) {
      due.set(++next, { at: now + ms, run })
      return next
    },
    clear: (handle) => due.delete(handle as number),
  }
  /** Moves time to `to`, firing each timer due on the way at its time. */
  const advanceTo = (to: number) => {
    for (;;) {
      const [handle, timer] = [...due].sort((a, b) => a[1].at - b[1].at)[0] ?? []
      if (!timer || timer.at > to) break
      due.delete(handle!)
      now = timer.at
      timer.run()
    }
    now = to
  }
  return { timers, advanceTo }
}

const OPTIONS = { settleMs: 200, gapMs: 500 }

describe('the console throttle', () => {
  it('serves news arriving together with one call, after the settling wait', () => {
    const { timers, advanceTo } = manualTimers()
    const calls: number[] = []
    const news = throttle(() => calls.push(timers.now()), OPTIONS, timers)
    news()
    advanceTo(50)
    news()
    advanceTo(1_000)
    expect(calls).toEqual([200])
  })

  it('keeps serving news that never stops, at most once per gap and each within a second', () => {
    const { timers, advanceTo } = manualTimers()
    const calls: number[] = []
    const news = throttle(() => calls.push(timers.now()), OPTIONS, timers)
    const sent: number[] = []
    for (let at = 0; at < 10_000; at += 100) {
      advanceTo(at)
      news()
      sent.push(at)
    }
    advanceTo(11_000)
    expect(calls.length).toBeGreaterThanOrEqual(10)
    for (let i = 1; i < calls.length; i++) expect(calls[i] - calls[i - 1]).toBeGreaterThanOrEqual(OPTIONS.gapMs)
    for (const at of sent) expect(calls.find((call) => call >= at)! - at).toBeLessThanOrEqual(1_000)
  })

  it('calls nothing more once cancelled', () => {
    const { timers, advanceTo } = manualTimers()
    const calls: number[] = []
    const news = throttle(() => calls.push(timers.now()), OPTIONS, timers)
    news()
    news.cancel()
    advanceTo(5_000)
    expect(calls).toEqual([])
  })
})
