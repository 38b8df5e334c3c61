import { describe, expect, it } from 'bun:test'
import { loadConfig } from '../../../core/config.ts'
import { MAX_RETRY_AFTER_MS, nextRetryDelay, parseRetryAfter } from '../../../runtime/hooks/retry-schedule.ts'

const DEFAULT = loadConfig({}).hookRetrySchedule

describe('the retry schedule', () => {
  it('reads the default schedule of the design: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(DEFAULT).toEqual([0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000])
    expect(loadConfig({ AUTOMATON_HOOK_RETRY_SCHEDULE: '0, 50ms,1.5s, 2 minutes' }).hookRetrySchedule).toEqual([
      0, 50, 1500, 120_000,
    ])
  })

  it('refuses a malformed schedule at start, naming the variable and the entry', () => {
    expect(() => loadConfig({ AUTOMATON_HOOK_RETRY_SCHEDULE: '0,5 parsecs' })).toThrow(
      /AUTOMATON_HOOK_RETRY_SCHEDULE: "5 parsecs" is not a duration/,
    )
    expect(() => loadConfig({ AUTOMATON_HOOK_RETRY_SCHEDULE: ',' })).toThrow(/AUTOMATON_HOOK_RETRY_SCHEDULE/)
    expect(() => loadConfig({ AUTOMATON_HOOK_ALLOW_HTTP: 'maybe' })).toThrow(
      /AUTOMATON_HOOK_ALLOW_HTTP must be true or false/,
    )
  })

  it('waits the n-th delay before retry n and stops after maxRetries', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((n) => nextRetryDelay(DEFAULT, n, 8))).toEqual(DEFAULT)
    expect(nextRetryDelay(DEFAULT, 8, 8)).toBeNull()
    expect(nextRetryDelay(DEFAULT, 0, 0)).toBeNull()
    expect(nextRetryDelay(DEFAULT, 2, 3)).toBe(300_000)
    expect(nextRetryDelay(DEFAULT, 3, 3)).toBeNull()
  })

  it('repeats the last delay when maxRetries outlasts the schedule', () => {
    expect(nextRetryDelay([0, 50], 5, 10)).toBe(50)
  })

  it('waits longer when Retry-After asks so, never shorter, and at most a day', () => {
    expect(nextRetryDelay(DEFAULT, 1, 8, 60_000)).toBe(60_000)
    expect(nextRetryDelay(DEFAULT, 2, 8, 60_000)).toBe(300_000)
    expect(nextRetryDelay(DEFAULT, 1, 8, 30 * 86_400_000)).toBe(MAX_RETRY_AFTER_MS)
    expect(nextRetryDelay(DEFAULT, 8, 8, 1000)).toBeNull()
  })

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0)
    expect(parseRetryAfter('120', now)).toBe(120_000)
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:00:30 GMT', now)).toBe(30_000)
    expect(parseRetryAfter('Thu, 01 Jan 2026 11:00:00 GMT', now)).toBe(0)
    expect(parseRetryAfter('soon', now)).toBeNull()
    expect(parseRetryAfter(undefined, now)).toBeNull()
  })
})
