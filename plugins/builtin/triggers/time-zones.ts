/**
 * Wall-clock time in IANA time zones, through `Intl` only (no time zone data of our own, no
 * dependence on the process's TZ). A "wall time" is written as the UTC milliseconds of the
 * same calendar fields, the form the rrule library computes in.
 *
 * It does not parse or format dates for people; callers show instants as RFC 3339 UTC.
 */

const DAY = 86_400_000
const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
    formatters.set(timeZone, f)
  }
  return f
}

/** Whether `Intl` knows the time zone (an IANA name such as `Europe/Berlin`, or `UTC`). */
export function isTimeZone(name: string): boolean {
  if (!name || name.length > 64) return false
  try {
    formatter(name)
    return true
  } catch {
    return false
  }
}

/** The wall-clock time at an instant, in a time zone. */
export function wallTime(instant: number, timeZone: string): number {
  const fields: Record<string, number> = {}
  for (const part of formatter(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value)
  }
  const ms = ((instant % 1000) + 1000) % 1000
  return Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second, ms)
}

/**
 * The instant at which a wall-clock time happens in a time zone. A time that happens twice
 * (clocks fall back) resolves to the earlier instant; a time that clocks skip (spring
 * forward) moves forward by the length of the gap, so 02:30 becomes 03:30.
 */
export function instantOf(wall: number, timeZone: string): number {
  return instantsOf(wall, timeZone)[0]
}

/** Every instant at which a wall-clock time happens, earliest first: two when clocks fall back, one (moved past the gap) when they skip it. */
export function instantsOf(wall: number, timeZone: string): number[] {
  const offsetAt = (instant: number) => wallTime(instant, timeZone) - instant
  const before = wall - offsetAt(wall - DAY)
  const after = wall - offsetAt(wall + DAY)
  const exact = (instant: number) => wallTime(instant, timeZone) === wall
  if (before !== after && exact(before) && exact(after)) return [Math.min(before, after), Math.max(before, after)]
  if (exact(before)) return [before]
  if (exact(after)) return [after]
  return [before]
}
