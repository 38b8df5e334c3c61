/** The cronjob and schedule triggers' own parsing: syntax, time zones and daylight saving. */
import { describe, expect, it } from 'bun:test'
import { cronjob } from '../../../plugins/builtin/triggers/cronjob.ts'
import { schedule } from '../../../plugins/builtin/triggers/schedule.ts'
import { instantOf, wallTime } from '../../../plugins/builtin/triggers/time-zones.ts'

const at = (text: string) => Date.parse(text)
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

function ticks(next: (after: number) => number | null, from: string, count: number): Array<string | null> {
  const out: Array<string | null> = []
  let cursor: number | null = at(from)
  for (let i = 0; i < count && cursor !== null; i++) {
    cursor = next(cursor)
    out.push(iso(cursor))
  }
  return out
}

const cron = (expression: string, timezone?: string) => cronjob.schedule!({ expression, timezone })
const rrule = (text: string, timezone?: string) => schedule.schedule!({ rrule: text, timezone })

describe('cronjob', () => {
  it('reads five fields as minute hour day month weekday, in UTC by default', () => {
    expect(ticks(cron('30 9 * * 1-5').next, '2026-01-02T12:00:00Z', 3)).toEqual([
      '2026-01-05T09:30:00.000Z',
      '2026-01-06T09:30:00.000Z',
      '2026-01-07T09:30:00.000Z',
    ])
  })

  it('reads six fields with seconds first', () => {
    expect(ticks(cron('*/15 * * * * *').next, '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-01T00:00:15.000Z',
      '2026-01-01T00:00:30.000Z',
      '2026-01-01T00:00:45.000Z',
    ])
  })

  it('keeps 09:00 in Europe/Berlin across the March change to summer time', () => {
    expect(ticks(cron('0 9 * * *', 'Europe/Berlin').next, '2026-03-27T12:00:00Z', 3)).toEqual([
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
    ])
  })

  it('fires a time that clocks skip right after the gap, and a repeated time once', () => {
    const daily = cron('30 2 * * *', 'Europe/Berlin')
    expect(ticks(daily.next, '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-29T01:30:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ])
    expect(ticks(daily.next, '2026-10-24T12:00:00Z', 2)).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ])
  })

  it('keeps a wildcard-hour expression ticking through the repeated autumn hour', () => {
    expect(ticks(cron('30 * * * *', 'Europe/Berlin').next, '2026-10-24T23:45:00Z', 3)).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T01:30:00.000Z',
      '2026-10-25T02:30:00.000Z',
    ])
  })

  it('explains what is wrong with an expression or a time zone', () => {
    expect(cronjob.validate!({ expression: '* * *' })).toEqual([
      { path: '/expression', message: expect.stringContaining('has 3 fields') },
    ])
    expect(cronjob.validate!({ expression: '61 * * * *' })[0].message).toContain('not a valid cron expression')
    expect(cronjob.validate!({ expression: '0 0 31 2 *' })).toEqual([
      { path: '/expression', message: 'never matches a date' },
    ])
    expect(cronjob.validate!({ expression: '0 9 * * *', timezone: 'Mars/Olympus' })).toEqual([
      { path: '/timezone', message: expect.stringContaining('not a known time zone') },
    ])
    expect(cronjob.validate!({ expression: '0 9 * * mon-fri', timezone: 'America/New_York' })).toEqual([])
  })
})

describe('schedule (RFC 5545)', () => {
  it('expands DTSTART with TZID and a weekly RRULE in wall-clock time', () => {
    const s = rrule('DTSTART;TZID=Europe/Berlin:20260101T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO,WE')
    expect(s.timezone).toBe('Europe/Berlin')
    expect(ticks(s.next, '2026-03-20T00:00:00Z', 4)).toEqual([
      '2026-03-23T08:00:00.000Z',
      '2026-03-25T08:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
      '2026-04-01T07:00:00.000Z',
    ])
  })

  it('reads a floating DTSTART in the timezone field, and a UTC one in UTC', () => {
    expect(
      ticks(rrule('DTSTART:20260101T090000\nRRULE:FREQ=DAILY', 'America/New_York').next, '2026-01-01T00:00:00Z', 1),
    ).toEqual(['2026-01-01T14:00:00.000Z'])
    expect(ticks(rrule('DTSTART:20260101T090000Z\nRRULE:FREQ=DAILY').next, '2026-01-01T00:00:00Z', 1)).toEqual([
      '2026-01-01T09:00:00.000Z',
    ])
  })

  it('honours COUNT, UNTIL in UTC, EXDATE and RDATE', () => {
    expect(ticks(rrule('DTSTART:20260101T000000Z RRULE:FREQ=DAILY;COUNT=2').next, '2025-12-01T00:00:00Z', 3)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
      null,
    ])
    const until = rrule('DTSTART;TZID=America/New_York:20260101T090000\nRRULE:FREQ=DAILY;UNTIL=20260102T140000Z')
    expect(ticks(until.next, '2025-12-01T00:00:00Z', 3)).toEqual([
      '2026-01-01T14:00:00.000Z',
      '2026-01-02T14:00:00.000Z',
      null,
    ])
    const dates = rrule(
      'DTSTART;TZID=Europe/Berlin:20260105T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO\nEXDATE;TZID=Europe/Berlin:20260112T090000\nRDATE;TZID=Europe/Berlin:20260114T120000',
    )
    expect(ticks(dates.next, '2026-01-06T00:00:00Z', 2)).toEqual([
      '2026-01-14T11:00:00.000Z',
      '2026-01-19T08:00:00.000Z',
    ])
  })

  it('fires a daily rule once on the autumn night, an hourly rule through the repeated hour, and never twice at one instant in spring', () => {
    const daily = rrule('DTSTART;TZID=Europe/Berlin:20261001T023000\nRRULE:FREQ=DAILY')
    expect(ticks(daily.next, '2026-10-24T12:00:00Z', 2)).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ])
    const autumn = rrule('DTSTART;TZID=Europe/Berlin:20261024T003000\nRRULE:FREQ=HOURLY')
    expect(ticks(autumn.next, '2026-10-24T23:00:00Z', 4)).toEqual([
      '2026-10-24T23:30:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T01:30:00.000Z',
      '2026-10-25T02:30:00.000Z',
    ])
    const spring = rrule('DTSTART;TZID=Europe/Berlin:20260328T003000\nRRULE:FREQ=HOURLY')
    expect(ticks(spring.next, '2026-03-29T00:00:00Z', 3)).toEqual([
      '2026-03-29T00:30:00.000Z',
      '2026-03-29T01:30:00.000Z',
      '2026-03-29T02:30:00.000Z',
    ])
  })

  // The search is bounded (an unbounded one would not return); how fast it is belongs in a bench.
  it('gives up on a rule that matches nothing', () => {
    expect(
      schedule.validate!({ rrule: 'DTSTART:20260101T000000Z\nRRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30' })[0].message,
    ).toContain('has no occurrence')
  }, 10_000)

  it('finds the first occurrence of a rule that starts years from now', () => {
    expect(ticks(rrule('DTSTART:20400101T000000Z\nRRULE:FREQ=YEARLY').next, '2026-01-01T00:00:00Z', 1)).toEqual([
      '2040-01-01T00:00:00.000Z',
    ])
  })

  it('stays aligned for a frequent rule that started long ago', () => {
    const zoned = rrule('DTSTART;TZID=Europe/Berlin:20000101T000000\nRRULE:FREQ=MINUTELY;INTERVAL=7')
    expect(zoned.next(at('2026-06-01T00:00:00Z'))).not.toBeNull()
    const utc = rrule('DTSTART:20000101T000000Z\nRRULE:FREQ=MINUTELY;INTERVAL=7')
    expect(((utc.next(at('2026-06-01T00:00:00Z'))! - at('2000-01-01T00:00:00Z')) / 60_000) % 7).toBe(0)
  })

  it('explains what is wrong with a rule', () => {
    const problem = (text: string, timezone?: string) => schedule.validate!({ rrule: text, timezone })[0]?.message
    expect(problem('RRULE:FREQ=DAILY')).toContain('needs a DTSTART')
    expect(problem('DTSTART:20260101T090000Z')).toContain('needs an RRULE')
    expect(problem('DTSTART:20260101T090000Z\nRRULE:FREQ=SOMETIMES')).toContain('FREQ must be one of')
    expect(problem('DTSTART:20260101T090000Z\nRRULE:FREQ=DAILY;BYHOUR=25')).toContain('BYHOUR value "25"')
    expect(problem('DTSTART:20260101T090000Z\nRRULE:FREQ=WEEKLY;BYDAY=XX')).toContain('BYDAY "XX"')
    expect(problem('DTSTART:20260231T090000Z\nRRULE:FREQ=DAILY')).toContain('not a real date')
    expect(problem('DTSTART;TZID=Nowhere/City:20260101T090000\nRRULE:FREQ=DAILY')).toContain('TZID "Nowhere/City"')
    expect(problem('DTSTART;TZID=Europe/Berlin:20260101T090000\nRRULE:FREQ=DAILY', 'Asia/Tokyo')).toContain(
      'give one of them',
    )
    expect(problem('DTSTART:20260101T000000Z\nRRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30')).toContain(
      'has no occurrence',
    )
    expect(problem('DTSTART:20260101T000000Z\nVEVENT:FOO')).toContain('not supported')
    expect(
      schedule.validate!({ rrule: 'DTSTART;TZID=Europe/Berlin:20260101T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO,WE' }),
    ).toEqual([])
  })
})

describe('time zones', () => {
  it('turns wall-clock times into instants and back', () => {
    const wall = Date.UTC(2026, 6, 1, 9)
    expect(iso(instantOf(wall, 'Europe/Berlin'))).toBe('2026-07-01T07:00:00.000Z')
    expect(wallTime(at('2026-07-01T07:00:00Z'), 'Europe/Berlin')).toBe(wall)
    expect(iso(instantOf(Date.UTC(2026, 2, 29, 2, 30), 'Europe/Berlin'))).toBe('2026-03-29T01:30:00.000Z')
    expect(iso(instantOf(Date.UTC(2026, 9, 25, 2, 30), 'Europe/Berlin'))).toBe('2026-10-25T00:30:00.000Z')
  })
})
