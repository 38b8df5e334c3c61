import { describe, expect, it } from 'bun:test'
import { createManualClock } from '../../core/ports/clock.ts'
import { createStaleness } from '../../runtime/workers.ts'

const TIMEOUT = 15_000
const BEAT = 3_000

describe('when another worker counts as dead', () => {
  it('is a heartbeat older than the timeout while this worker writes its own', () => {
    const clock = createManualClock()
    const staleness = createStaleness({ clock, timeoutMs: TIMEOUT })
    clock.advance(BEAT)
    staleness.beat(true)
    expect(staleness.staleBefore()).toBe(clock.now() - TIMEOUT)
  })

  it('is never a heartbeat that went stale while this worker could not write its own either', () => {
    const clock = createManualClock()
    const staleness = createStaleness({ clock, timeoutMs: TIMEOUT })
    staleness.beat(true)
    const lastWritten = clock.now()
    // The database is away for 40 s: every heartbeat, ours included, fails.
    for (let i = 0; i < 40_000 / BEAT; i++) {
      clock.advance(BEAT)
      staleness.beat(false)
      expect(staleness.staleBefore()).toBe(lastWritten - TIMEOUT)
    }
    clock.advance(BEAT)
    staleness.beat(true)
    const back = clock.now()
    // For a full timeout from the return, only what was stale before the outage counts.
    clock.advance(TIMEOUT - 1)
    expect(staleness.staleBefore()).toBe(lastWritten - TIMEOUT)
    clock.advance(1)
    expect(staleness.staleBefore()).toBe(back)
    expect(staleness.staleBefore()).toBe(clock.now() - TIMEOUT)
  })

  it('counts a second outage within the grace of the first from the first one', () => {
    const clock = createManualClock()
    const staleness = createStaleness({ clock, timeoutMs: TIMEOUT })
    const lastWritten = clock.now()
    clock.advance(BEAT)
    staleness.beat(false)
    clock.advance(BEAT)
    staleness.beat(true)
    clock.advance(BEAT)
    staleness.beat(false)
    clock.advance(BEAT)
    staleness.beat(true)
    expect(staleness.staleBefore()).toBe(lastWritten - TIMEOUT)
  })
})
