/** Time as a port, so cooldowns, delays and retries are testable without sleeping. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number
}

export const systemClock: Clock = Object.freeze({ now: () => Date.now() })

/** A clock that moves only when told to; for tests. */
export function createManualClock(start = Date.UTC(2026, 0, 1)): Clock & { advance(ms: number): void; set(ms: number): void } {
  let current = start
  return {
    now: () => current,
    advance: (ms: number) => { current += ms },
    set: (ms: number) => { current = ms },
  }
}
