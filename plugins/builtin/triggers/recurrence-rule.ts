/**
 * RFC 5545 recurrence text for the `schedule` trigger: a `DTSTART` line (with `TZID=`, a UTC
 * `Z`, or floating in the trigger's time zone), one or more `RRULE` lines, and optional
 * `EXDATE`/`RDATE` lines, expanded with the `rrule` package.
 *
 * Lines are checked strictly here, so that a typo is a clear 400 and never a rule the library
 * loops on: the library expands a rule until the year 9999 when nothing matches (31 February,
 * every second), and for ever when INTERVAL never meets BYHOUR. So: rules whose parts cannot
 * meet are refused (see limits.ts), and every search runs on dates moved by whole 400-year
 * Gregorian cycles (which keep weekdays and leap years) to just before the year 9999, so the
 * library gives up after a few centuries at most.
 *
 * The library's own TZID support converts through the process's local time zone, so it is not
 * used: the rule is expanded in wall-clock time and each occurrence is placed in its zone with
 * `Intl` (time-zones.ts). Daylight saving follows the wall clock: 09:00 stays 09:00; a time
 * that clocks skip moves past the gap. A time that happens twice (clocks fall back) fires once
 * for daily and longer rules, and at both instants for hourly and shorter ones, so "every
 * 15 minutes" keeps ticking through the repeated hour.
 */
import { type Options, RRule, RRuleSet } from './rrule-package.ts'
import { checkLimits, firstMatchingDay, RecurrenceError, shiftFor } from './recurrence-limits.ts'
import { instantOf, instantsOf, isTimeZone, wallTime } from './time-zones.ts'

export { RecurrenceError }

export interface Recurrence {
  readonly timezone: string
  /** The instant of DTSTART. */
  readonly start: number
  /** The first occurrence after `after`, or null when none is left. */
  next(after: number): number | null
  /** The first day (wall time) within ten years of DTSTART that the rules' date parts allow; null when there is none. */
  firstDay(): number | null
}

const DATE = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/
const WEEKDAY = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/
const FREQS = ['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY', 'MINUTELY', 'SECONDLY'] as const
const PERIOD_MS: Record<string, number> = {
  WEEKLY: 7 * 86_400_000,
  DAILY: 86_400_000,
  HOURLY: 3_600_000,
  MINUTELY: 60_000,
  SECONDLY: 1000,
}
const SUB_DAILY = new Set(['HOURLY', 'MINUTELY', 'SECONDLY'])
const MAX_COUNT = 10_000
const NUMBER_PARTS: Record<string, [number, number, boolean]> = {
  // name: [min, max, may be negative]
  BYSECOND: [0, 59, false],
  BYMINUTE: [0, 59, false],
  BYHOUR: [0, 23, false],
  BYMONTH: [1, 12, false],
  BYMONTHDAY: [1, 31, true],
  BYYEARDAY: [1, 366, true],
  BYWEEKNO: [1, 53, true],
  BYSETPOS: [1, 366, true],
}

interface Rule {
  text: string
  freq: string
  rebase: boolean
  untilUtc: boolean
}

interface DateValue {
  wall: number
  utc: boolean
}

function parseDate(text: string, what: string): DateValue {
  const m = DATE.exec(text)
  if (!m) throw new RecurrenceError(`${what} "${text}" is not a date: use YYYYMMDD or YYYYMMDDTHHMMSS (Z for UTC)`)
  const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1).map((v) => v ?? '0')
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s))
  const back = new Date(wall)
  if (
    back.getUTCMonth() !== Number(mo) - 1 ||
    back.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    throw new RecurrenceError(`${what} "${text}" is not a real date and time`)
  }
  return { wall, utc: m[7] === 'Z' }
}

function checkRule(value: string): Rule {
  const seen = new Set<string>()
  let freq = ''
  let hasCount = false
  let untilUtc = false
  for (const part of value.split(';')) {
    const [key, v, extra] = part.split('=')
    const name = key?.toUpperCase()
    if (!name || v === undefined || v === '' || extra !== undefined)
      throw new RecurrenceError(`RRULE part "${part}" is not NAME=VALUE`)
    if (seen.has(name)) throw new RecurrenceError(`RRULE names ${name} twice`)
    seen.add(name)
    const values = v.toUpperCase().split(',')
    if (name === 'FREQ') {
      if (!(FREQS as readonly string[]).includes(values[0]) || values.length > 1)
        throw new RecurrenceError(`FREQ must be one of ${FREQS.join(', ')}`)
      freq = values[0]
    } else if (name === 'INTERVAL' || name === 'COUNT') {
      // COUNT is expanded from DTSTART on every search, so it is kept to what stays fast.
      if (!/^\d{1,5}$/.test(v) || Number(v) < 1 || (name === 'COUNT' && Number(v) > MAX_COUNT)) {
        throw new RecurrenceError(`${name} must be an integer between 1 and ${name === 'COUNT' ? MAX_COUNT : 99999}`)
      }
      hasCount ||= name === 'COUNT'
    } else if (name === 'UNTIL') {
      untilUtc = parseDate(v, 'UNTIL').utc
    } else if (name === 'WKST') {
      if (!/^(MO|TU|WE|TH|FR|SA|SU)$/.test(values[0]) || values.length > 1)
        throw new RecurrenceError('WKST must be a day: MO … SU')
    } else if (name === 'BYDAY') {
      for (const day of values) {
        const m = WEEKDAY.exec(day)
        if (!m || (m[1] !== undefined && (Math.abs(Number(m[1])) < 1 || Math.abs(Number(m[1])) > 53)))
          throw new RecurrenceError(`BYDAY "${day}" is not a day such as MO, 1MO or -1FR`)
      }
    } else if (NUMBER_PARTS[name]) {
      const [min, max, negative] = NUMBER_PARTS[name]
      for (const n of values) {
        const ok =
          /^[+-]?\d{1,3}$/.test(n) &&
          Math.abs(Number(n)) >= min &&
          Math.abs(Number(n)) <= max &&
          (negative || Number(n) >= 0)
        if (!ok)
          throw new RecurrenceError(
            `${name} value "${n}" must be between ${negative ? `-${max} and ${max} (not 0)` : `${min} and ${max}`}`,
          )
      }
    } else {
      throw new RecurrenceError(`RRULE part ${name} is not supported`)
    }
  }
  if (!freq) throw new RecurrenceError('RRULE needs FREQ')
  if (seen.has('COUNT') && seen.has('UNTIL')) throw new RecurrenceError('RRULE may have COUNT or UNTIL, not both')
  return { text: value.toUpperCase(), freq, rebase: !hasCount && freq in PERIOD_MS, untilUtc }
}

/** Parses recurrence text; `timezone` applies when DTSTART names none. Throws RecurrenceError. */
export function parseRecurrence(text: string, timezone?: string): Recurrence {
  let start: DateValue | null = null
  let zone: string | null = null
  const rules: Rule[] = []
  const dates: Record<'RDATE' | 'EXDATE', DateValue[]> = { RDATE: [], EXDATE: [] }
  const dateZones = new Set<string>()
  const lines = text.trim().split(/\s+/).filter(Boolean)
  if (lines.length === 0) throw new RecurrenceError('is empty; write a DTSTART line and an RRULE line')
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon < 0) throw new RecurrenceError(`line "${line}" is not NAME:VALUE (DTSTART, RRULE, EXDATE or RDATE)`)
    const [name, ...params] = line.slice(0, colon).toUpperCase().split(';')
    const value = line.slice(colon + 1)
    // Time zone names are case-sensitive; everything else is not.
    const tzName =
      line
        .slice(0, colon)
        .split(';')
        .find((p) => p.toUpperCase().startsWith('TZID='))
        ?.slice(5) ?? null
    for (const p of params) {
      if (!p.startsWith('TZID=') && p !== 'VALUE=DATE' && p !== 'VALUE=DATE-TIME')
        throw new RecurrenceError(`${name} parameter ${p} is not supported`)
    }
    if (tzName !== null && !isTimeZone(tzName)) throw new RecurrenceError(`TZID "${tzName}" is not a known time zone`)
    if (name === 'DTSTART') {
      if (start) throw new RecurrenceError('has more than one DTSTART')
      start = parseDate(value, 'DTSTART')
      if (tzName !== null && start.utc) throw new RecurrenceError('DTSTART has both TZID and a UTC Z')
      zone = tzName ?? (start.utc ? 'UTC' : null)
    } else if (name === 'RRULE') {
      if (params.length > 0) throw new RecurrenceError('RRULE takes no parameters')
      rules.push(checkRule(value))
    } else if (name === 'RDATE' || name === 'EXDATE') {
      for (const d of value.split(',')) dates[name].push(parseDate(d, name))
      if (tzName !== null) dateZones.add(tzName)
    } else {
      throw new RecurrenceError(`${name} lines are not supported; use DTSTART, RRULE, EXDATE and RDATE`)
    }
  }
  if (!start) throw new RecurrenceError('needs a DTSTART line, such as DTSTART;TZID=Europe/Berlin:20260101T090000')
  if (rules.length === 0) throw new RecurrenceError('needs an RRULE line, such as RRULE:FREQ=WEEKLY;BYDAY=MO')
  if (timezone !== undefined && zone !== null && zone !== timezone && !(zone === 'UTC' && timezone === 'UTC')) {
    throw new RecurrenceError(`DTSTART is in ${zone} but timezone says ${timezone}; give one of them`)
  }
  const tz = zone ?? timezone ?? 'UTC'
  if (!isTimeZone(tz)) throw new RecurrenceError(`"${tz}" is not a known time zone`)
  for (const other of dateZones) {
    if (other !== tz) throw new RecurrenceError(`EXDATE and RDATE use the rule's time zone (${tz}), not ${other}`)
  }
  // UTC values (…Z) in UNTIL, RDATE and EXDATE are instants: move them into the rule's wall time.
  const toWall = (d: DateValue) => (d.utc ? wallTime(d.wall, tz) : d.wall)
  return createRecurrence(toWall(start), rules, dates.RDATE.map(toWall), dates.EXDATE.map(toWall), tz)
}

function createRecurrence(
  dtstart: number,
  rules: Rule[],
  rdates: number[],
  exdates: number[],
  timezone: string,
): Recurrence {
  const everyOverlap = rules.some((rule) => SUB_DAILY.has(rule.freq))
  const placed = (wall: number) => (everyOverlap ? instantsOf(wall, timezone) : [instantOf(wall, timezone)])
  const parsed = rules.map((rule) => {
    const partial = RRule.parseString(rule.text)
    if (partial.until && rule.untilUtc) partial.until = new Date(wallTime(partial.until.getTime(), timezone))
    checkLimits(partial, new Date(dtstart))
    return { rule, partial }
  })

  /**
   * The rule set in wall time, for a search from `from`, moved by `shift`. Fixed-period rules
   * start a whole number of periods before `from`, so expansion stays short.
   */
  function setFrom(from: number, shift: number): RRuleSet {
    const set = new RRuleSet(true)
    for (const { rule, partial } of parsed) {
      let start = dtstart
      if (rule.rebase) {
        const step = PERIOD_MS[rule.freq] * (partial.interval ?? 1)
        const periods = Math.floor((from - dtstart) / step) - 1
        if (periods > 0) start = dtstart + periods * step
      }
      const options: Partial<Options> = { ...partial, dtstart: new Date(start + shift), tzid: null }
      if (partial.until) options.until = new Date(partial.until.getTime() + shift)
      set.rrule(new RRule(options, true))
    }
    for (const d of rdates) set.rdate(new Date(d + shift))
    for (const d of exdates) set.exdate(new Date(d + shift))
    return set
  }

  return {
    timezone,
    start: instantOf(dtstart, timezone),
    next(after: number): number | null {
      let cursor = wallTime(after, timezone)
      const shift = shiftFor(cursor)
      const set = setFrom(cursor, shift)
      // Wall time is not monotonic across a fall-back hour: the occurrence at `after`'s own wall
      // time may still have a later instant, and occurrences may land before `after`.
      for (let i = 0; i < 100; i++) {
        const found = set.after(new Date(cursor + shift), i === 0)
        if (!found) return null
        const wall = found.getTime() - shift
        const at = placed(wall).find((instant) => instant > after)
        if (at !== undefined) return at
        cursor = wall
      }
      return null
    },
    firstDay: () =>
      parsed.reduce<number | null>(
        (best, { rule, partial }) => {
          const day = firstMatchingDay(partial, rule.freq, dtstart)
          return day !== null && (best === null || day < best) ? day : best
        },
        rdates.length > 0 ? Math.min(...rdates) : null,
      ),
  }
}
