/** Time as a port, so cooldowns, delays, retries and timeouts are testable without sleeping. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number
  /**
   * Resolves once `ms` of this clock's time has passed; rejects with the signal's reason when it
   * is aborted first. Absent on a clock that cannot wait: callers then use the system's timers.
   */
  sleep?(ms: number, signal?: AbortSignal): Promise<void>
}

/** The system's timers, behind an abort signal. */
export function systemSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        reject(signal.reason)
      },
      { once: true },
    )
  })
}

export const systemClock: Clock = Object.freeze({ now: () => Date.now(), sleep: systemSleep })

/** Waits on `clock` when it can, else on the system's timers. */
export const sleepOn = (clock: Clock, ms: number, signal?: AbortSignal) =>
  clock.sleep ? clock.sleep(ms, signal) : systemSleep(ms, signal)

/** A clock that moves only when told to: sleepers wake when it is advanced past their time; for tests. */
export function createManualClock(
  start = Date.UTC(2026, 0, 1),
): Clock & { advance(ms: number): void; set(ms: number): void } {
  let current = start
  const sleepers = new Set<{ at: number; wake: () => void }>()
  const wakeDue = () => {
    for (const s of [...sleepers]) {
      if (s.at <= current) {
        sleepers.delete(s)
        s.wake()
      }
    }
  }
  return {
    now: () => current,
    sleep(ms, signal) {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason)
        const sleeper = { at: current + Math.max(0, ms), wake: () => resolve() }
        sleepers.add(sleeper)
        signal?.addEventListener(
          'abort',
          () => {
            sleepers.delete(sleeper)
            reject(signal.reason)
          },
          { once: true },
        )
        wakeDue()
      })
    },
    advance: (ms: number) => {
      current += ms
      wakeDue()
    },
    set: (ms: number) => {
      current = ms
      wakeDue()
    },
  }
}
