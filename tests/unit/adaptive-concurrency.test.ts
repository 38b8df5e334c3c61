import { describe, expect, it } from 'bun:test'
import { adaptiveConcurrency } from '../../runtime/engine/adaptive-concurrency.ts'

/** Holds the event loop for `ms`, as a burst of runs that take all of it would. */
function hold(ms: number) {
  const until = performance.now() + ms
  while (performance.now() < until) {
    /* busy */
  }
}

describe("the executor's adaptive concurrency", () => {
  it('keeps the configured concurrency when the target is 0', async () => {
    const limit = adaptiveConcurrency({ max: 64, targetLagMs: 0, onRaise: () => {} })
    hold(100)
    await Bun.sleep(150)
    expect(limit.current()).toBe(64)
    limit.stop()
  })

  it('keeps fewer runs going while the event loop lags, never below an eighth, and comes back once it does not', async () => {
    let raised = 0
    const limit = adaptiveConcurrency({ max: 64, targetLagMs: 20, onRaise: () => raised++ })
    try {
      expect(limit.current()).toBe(64)
      // A loop that runs 60 ms at a time, for about a second and a half.
      const lows: number[] = []
      for (let i = 0; i < 25; i++) {
        hold(60)
        await Bun.sleep(1)
        lows.push(limit.current())
      }
      expect(Math.min(...lows)).toBeLessThan(64)
      expect(Math.min(...lows)).toBeGreaterThanOrEqual(8)
      expect(limit.current()).toBe(8)
      expect(limit.lagMs()).toBeGreaterThan(20)
      // An idle loop: back to the full concurrency, and whoever waits is told.
      const deadline = Date.now() + 5000
      while (limit.current() < 64 && Date.now() < deadline) await Bun.sleep(50)
      expect(limit.current()).toBe(64)
      expect(raised).toBeGreaterThan(0)
      expect(limit.lagMs()).toBeLessThan(10)
    } finally {
      limit.stop()
    }
  })
})
