/**
 * Durations written by operators: `0`, `250ms`, `5s`, `5m`, `2h`, `1d`, or Effect's long form
 * (`5 seconds`, `2 hours`). A bare number is milliseconds. Effect's Duration does the unit
 * arithmetic; this file only maps the short units people type in environment variables onto it.
 * It parses; it does not schedule anything.
 */
import { Duration, Option } from 'effect'

const SHORT = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$/i
const UNITS: Record<string, string> = { ms: 'millis', s: 'seconds', m: 'minutes', h: 'hours', d: 'days', w: 'weeks' }

/** Milliseconds of one duration; null when the text is not a duration or is negative. */
export function parseDurationMs(text: string): number | null {
  const trimmed = text.trim()
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed))
  const short = SHORT.exec(trimmed)
  const input = (short ? `${short[1]} ${UNITS[short[2].toLowerCase()]}` : trimmed) as Duration.Input
  const decoded = Duration.fromInput(input)
  if (Option.isNone(decoded) || !Duration.isFinite(decoded.value)) return null
  const ms = Duration.toMillis(decoded.value)
  return ms >= 0 ? Math.round(ms) : null
}

/** A comma-separated list of durations, in milliseconds; throws naming the first bad entry. */
export function parseDurationList(text: string): number[] {
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  return entries.map((entry) => {
    const ms = parseDurationMs(entry)
    if (ms === null) throw new Error(`"${entry}" is not a duration (use e.g. 0, 250ms, 5s, 5m, 2h)`)
    return ms
  })
}
