/**
 * When a failed delivery is tried again: retry n waits the n-th delay of the operator's schedule
 * (`AUTOMATON_HOOK_RETRY_SCHEDULE`; the last delay repeats past its end), or longer when the
 * receiver asked so with `Retry-After`, and there are at most `maxRetries` retries. Pure
 * functions; the worker applies them.
 */

/** A receiver's Retry-After is honoured up to this long. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000

/**
 * Milliseconds until the next retry, or null when the delivery gives up.
 * `retries` counts the retries already made (0 after a failed first attempt).
 */
export function nextRetryDelay(
  schedule: readonly number[],
  retries: number,
  maxRetries: number,
  retryAfterMs: number | null = null,
): number | null {
  if (retries >= maxRetries || schedule.length === 0) return null
  const planned = schedule[Math.min(retries, schedule.length - 1)]
  return retryAfterMs === null ? planned : Math.max(planned, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS))
}

/** `Retry-After` as milliseconds from `now`: delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (!value) return null
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}
