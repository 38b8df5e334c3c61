/**
 * Clocks for tests of a whole system, where the engine's timers must keep running on real time
 * while the test decides when something has aged: the real time, moved forward on demand.
 * (Unit tests that own every timer use core/ports/clock.ts's manual clock instead.)
 */
import { type Clock, systemSleep } from '../../core/ports/clock.ts'

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

export interface RecordingClock extends Clock {
  /** Every wait asked of this clock, in milliseconds, in the order asked. */
  readonly sleeps: readonly number[]
}

/** The real time and the system's timers, keeping what each wait asked for: a test reads the delays, not the time. */
export function createRecordingClock(): RecordingClock {
  const sleeps: number[] = []
  return {
    sleeps,
    now: () => Date.now(),
    sleep(ms, signal) {
      sleeps.push(ms)
      return systemSleep(ms, signal)
    },
  }
}
