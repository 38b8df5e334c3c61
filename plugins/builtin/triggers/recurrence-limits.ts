/**
 * What keeps the `rrule` package's expansion short (see recurrence-rule.ts): refusing rules
 * whose parts can never meet, finding out cheaply whether a rule's date parts allow any day at
 * all, and moving searches next to the year 9999, where the package stops looking.
 */
import { Frequency, type Options, RRule, Weekday } from './rrule-package.ts'

export class RecurrenceError extends Error {
  override name = 'RecurrenceError'
}

const DAY_MS = 86_400_000
/** 400 Gregorian years: the calendar (weekdays, leap years) repeats exactly after them. */
const CYCLE_MS = 146_097 * DAY_MS
const LAST_YEAR = 9989
const TEN_YEARS_MS = 3653 * DAY_MS

/** How far to move a search that starts at `wall` so that it starts at most 410 years before the package's last year. */
export function shiftFor(wall: number): number {
  const cycles = Math.floor((LAST_YEAR - new Date(wall).getUTCFullYear()) / 400)
  return cycles > 0 ? cycles * CYCLE_MS : 0
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))
const list = (value: number | number[] | null | undefined): number[] | null =>
  value === null || value === undefined ? null : Array.isArray(value) ? value : [value]
const range = (n: number) => Array.from({ length: n }, (_, i) => i)

/**
 * Refuses rules the package would loop on: BYSETPOS outside monthly and yearly rules, and an
 * INTERVAL of hours, minutes or seconds that never lands on the BYHOUR/BYMINUTE/BYSECOND given.
 */
export function checkLimits(rule: Partial<Options>, dtstart: Date): void {
  const freq = rule.freq!
  if (list(rule.bysetpos) && freq !== Frequency.MONTHLY && freq !== Frequency.YEARLY) {
    throw new RecurrenceError('BYSETPOS is supported with FREQ=MONTHLY and FREQ=YEARLY only')
  }
  if (freq < Frequency.HOURLY) return
  // Per day, the rule visits the hour, minute or second of day start + k × INTERVAL (mod a day).
  const unit = freq === Frequency.HOURLY ? 3600 : freq === Frequency.MINUTELY ? 60 : 1
  const step = gcd((rule.interval ?? 1) * unit, 86_400)
  const origin = dtstart.getUTCHours() * 3600 + dtstart.getUTCMinutes() * 60 + dtstart.getUTCSeconds()
  const hours = list(rule.byhour) ?? range(24)
  const minutes = freq >= Frequency.MINUTELY ? (list(rule.byminute) ?? range(60)) : [dtstart.getUTCMinutes()]
  const seconds = freq === Frequency.SECONDLY ? (list(rule.bysecond) ?? range(60)) : [dtstart.getUTCSeconds()]
  for (const h of hours) {
    for (const m of minutes) {
      for (const s of seconds) if ((((h * 3600 + m * 60 + s - origin) % step) + step) % step === 0) return
    }
  }
  throw new RecurrenceError('INTERVAL never lands on the BYHOUR, BYMINUTE or BYSECOND given (counted from DTSTART)')
}

/**
 * The first day (wall time, midnight) within ten years of `dtstart` that the rule's date parts
 * allow, found with a yearly rule of the same date parts (one step per year, not per second).
 */
export function firstMatchingDay(rule: Partial<Options>, freq: string, dtstart: number): number | null {
  const day = dtstart - (((dtstart % DAY_MS) + DAY_MS) % DAY_MS)
  const dated = rule.bymonth ?? rule.bymonthday ?? rule.byyearday ?? rule.byweekno ?? rule.byweekday
  if (dated === undefined || dated === null) return day
  const weekdays = (
    Array.isArray(rule.byweekday)
      ? rule.byweekday
      : rule.byweekday === undefined || rule.byweekday === null
        ? []
        : [rule.byweekday]
  ) as Array<Weekday | number>
  const nth = weekdays.some((w) => w instanceof Weekday && w.n)
  // An nth weekday counts within the month for monthly rules and is ignored by weekly and shorter ones.
  const byweekday =
    freq === 'YEARLY' || freq === 'MONTHLY' ? weekdays : weekdays.map((w) => (w instanceof Weekday ? w.weekday : w))
  const bymonth = rule.bymonth ?? (freq === 'MONTHLY' && nth ? range(12).map((m) => m + 1) : undefined)
  const shift = shiftFor(day)
  const proxy = new RRule(
    {
      freq: Frequency.YEARLY,
      dtstart: new Date(day + shift),
      wkst: rule.wkst,
      bymonth,
      bymonthday: rule.bymonthday,
      byyearday: rule.byyearday,
      byweekno: rule.byweekno,
      byweekday: byweekday.length > 0 ? byweekday : undefined,
    },
    true,
  )
  const found = proxy.after(new Date(day + shift), true)
  if (!found || found.getTime() - shift > day + TEN_YEARS_MS) return null
  return found.getTime() - shift
}
