/** What the scheduler does with a due tick: fire it, or apply the catch-up policy to missed ticks. */
import { describe, expect, it } from 'bun:test'
import { planTick, SCAN_LIMIT } from '../../../runtime/schedules/plan.ts'

const SECOND = 1000
const every = (ms: number) => (after: number) => (Math.floor(after / ms) + 1) * ms
const base = { next: every(60 * SECOND), graceMs: 60 * SECOND, catchUp: 'skip' as const, catchUpLimit: 10 }

describe('planning a tick', () => {
  it('fires a tick that is due now and moves to the next one', () => {
    expect(planTick({ ...base, due: 600_000, now: 600_050 })).toEqual({
      fire: 600_000,
      late: false,
      next: 660_000,
      skipped: 0,
    })
  })

  it('still fires a tick that is a little late', () => {
    expect(planTick({ ...base, due: 600_000, now: 600_000 + 29 * SECOND })).toMatchObject({
      fire: 600_000,
      late: false,
    })
  })

  it('counts a tick later than half its gap as missed, and skips missed ticks by default', () => {
    const now = 600_000 + 5 * 60 * SECOND + 10 * SECOND
    expect(planTick({ ...base, due: 600_000, now })).toEqual({ fire: null, late: false, next: 900_000, skipped: 5 })
  })

  it('fires the latest missed tick once with catchUp "last"', () => {
    const now = 600_000 + 5 * 60 * SECOND + 40 * SECOND
    expect(planTick({ ...base, catchUp: 'last', due: 600_000, now })).toEqual({
      fire: 840_000 + 60 * SECOND,
      late: true,
      next: 960_000,
      skipped: 5,
    })
  })

  it('fires every missed tick, oldest first, with catchUp "all"', () => {
    const now = 600_000 + 3 * 60 * SECOND + 40 * SECOND
    expect(planTick({ ...base, catchUp: 'all', due: 600_000, now })).toEqual({
      fire: 600_000,
      late: true,
      next: 660_000,
      skipped: 0,
    })
  })

  it('keeps only the latest catchUpLimit missed ticks with catchUp "all"', () => {
    const now = 600_000 + 20 * 60 * SECOND + 40 * SECOND
    const plan = planTick({ ...base, catchUp: 'all', catchUpLimit: 3, due: 600_000, now })
    expect(plan).toEqual({
      fire: 600_000 + 18 * 60 * SECOND,
      late: true,
      next: 600_000 + 19 * 60 * SECOND,
      skipped: 18,
    })
  })

  it('estimates the middle of a very long outage instead of walking every tick', () => {
    const now = 600_000 + 5000 * 60 * SECOND + 40 * SECOND
    const plan = planTick({ ...base, due: 600_000, now })
    expect(plan.fire).toBeNull()
    expect(plan.next).toBe(600_000 + 5001 * 60 * SECOND)
    expect(plan.skipped).toBeGreaterThan(SCAN_LIMIT)
    expect(Math.abs(plan.skipped - 5001)).toBeLessThanOrEqual(2)
  })

  it('leaves a schedule without further occurrences with no next tick', () => {
    const once = (after: number) => (after < 600_000 ? 600_000 : null)
    expect(planTick({ ...base, next: once, due: 600_000, now: 600_010 })).toEqual({
      fire: 600_000,
      late: false,
      next: null,
      skipped: 0,
    })
  })
})
