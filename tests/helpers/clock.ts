/**
 * Clocks for tests of a whole system, where the engine's timers must keep running on real time
 * while the test decides when something has aged: the real time, moved forward on demand.
 * (Unit tests that own every timer use core/ports/clock.ts's manual clock instead.)
 */
import type { Clock } from '../../core/ports/clock.ts'

export interface SkewedClock extends Clock {
  /** Moves this clock `ms` ahead of the real time, on top of earlier skips; it never goes back. */
  skip(ms: number): void
}

export function createSkewedClock(): SkewedClock {
  let skew = 0
  return {
    now: () => Date.now() + skew,
    skip(ms) {
      if (ms < 0) throw new RangeError('a clock never goes back')
      skew += ms
    },
  }
}
