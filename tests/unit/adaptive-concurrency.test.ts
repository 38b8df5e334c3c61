/**
 * The executor's adaptive concurrency, driven by a ticker the test moves by hand: a tick that
 * arrives late is a loop that lagged, so no test here depends on how busy the machine is.
 */
import { describe, expect, it } from 'bun:test'
import { adaptiveConcurrency, type LagTicker } from '../../runtime/engine/adaptive-concurrency.ts'

/** A ticker whose time moves only when a tick is delivered, `lateMs` after it was due. */
function handTicker() {
  let at = 0
  let every = 0
  let tick: (() => void) | undefined
  const ticker: LagTicker = {
    now: () => at,
    every(ms, onTick) {
      every = ms
      tick = onTick
      return () => {
        tick = undefined
      }
    },
  }
  return {
    ticker,
    started: () => tick !== undefined,
    /** Delivers the next tick `lateMs` after it was due. */
    tick(lateMs: number) {
      at += every + lateMs
      tick?.()
    },
  }
}

describe("the executor's adaptive concurrency", () => {
  it('keeps the configured concurrency when the target is 0', () => {
    const hand = handTicker()
    const limit = adaptiveConcurrency({ max: 64, targetLagMs: 0, onRaise: () => {}, ticker: hand.ticker })
    for (let i = 0; i < 50; i++) hand.tick(100)
    expect(hand.started()).toBe(false)
    expect(limit.current()).toBe(64)
    limit.stop()
  })

  it('keeps fewer runs going while the event loop lags, never below an eighth, and comes back once it does not', () => {
    let raised = 0
    const hand = handTicker()
    const limit = adaptiveConcurrency({ max: 64, targetLagMs: 20, onRaise: () => raised++, ticker: hand.ticker })
    try {
      expect(limit.current()).toBe(64)
      // A loop that runs 60 ms at a time: every tick arrives 60 ms late, for a second and a half.
      const lows: number[] = []
      for (let i = 0; i < 25; i++) {
        hand.tick(60)
        lows.push(limit.current())
      }
      expect(Math.min(...lows)).toBeLessThan(64)
      expect(Math.min(...lows)).toBeGreaterThanOrEqual(8)
      expect(limit.current()).toBe(8)
      expect(limit.lagMs()).toBe(60)
      expect(raised).toBe(0)
      // An idle loop, its ticks on time: back to the full concurrency, and whoever waits is told.
      let ticks = 0
      while (limit.current() < 64 && ticks < 1000) {
        hand.tick(0)
        ticks++
      }
      expect(limit.current()).toBe(64)
      expect(raised).toBeGreaterThan(0)
      expect(limit.lagMs()).toBe(0)
      // A loop that lags a little, under the target, keeps it.
      for (let i = 0; i < 50; i++) hand.tick(15)
      expect(limit.current()).toBe(64)
    } finally {
      limit.stop()
    }
    expect(hand.started()).toBe(false)
  })
})
