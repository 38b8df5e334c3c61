/**
 * The `cronjob` trigger: a cron expression (5 fields, or 6 with seconds first) read in a time
 * zone. Parsing and the next occurrence come from effect's Cron module. A wall-clock time that
 * clocks skip fires right after the gap. A time that happens twice when clocks fall back fires
 * once (the earlier) when the hour field names hours, and at both instants when it starts with
 * a star, as classic cron does: `30 2 * * *` runs once that night, `0,30 * * * *` keeps ticking.
 */
import { Cron, Result } from 'effect'
import { defineTrigger, type TriggerSchedule, Type } from '../../../core/plugin/sdk.ts'
import { catchUpFields, catchUpOf, TickEventSchema, timezoneField, timezoneProblems } from './schedule-fields.ts'

const Payload = Type.Object({
  expression: Type.String({
    minLength: 1,
    maxLength: 200,
    description:
      'cron expression: minute hour day-of-month month day-of-week, or with seconds first; *, lists, ranges, steps and month/day names',
  }),
  timezone: Type.Optional(timezoneField),
  ...catchUpFields,
})

// A fixed reference for validation, so an expression that never matches (31 February) is found
// the same way on every call.
const REFERENCE = Date.UTC(2000, 0, 1)

function parse(expression: string, timezone: string): { cron: Cron.Cron } | { error: string } {
  const fields = expression.trim().split(/\s+/)
  if (fields.length !== 5 && fields.length !== 6)
    return {
      error: `has ${fields.length} fields; a cron expression has 5 (minute hour day month weekday) or 6 (second first)`,
    }
  const hour = fields[fields.length === 6 ? 2 : 1]
  const parsed = Cron.parse(fields.join(' '), timezone, { onDstOverlap: hour.startsWith('*') ? 'both' : 'earlier' })
  if (Result.isFailure(parsed)) return { error: `is not a valid cron expression: ${parsed.failure.message}` }
  return { cron: parsed.success }
}

function nextOf(cron: Cron.Cron, after: number): number | null {
  try {
    return Cron.next(cron, new Date(after)).getTime()
  } catch {
    return null
  }
}

export const cronjob = defineTrigger({
  type: 'cronjob',
  name: 'Cron job',
  description: 'Starts a run at every match of a cron expression, in a time zone.',
  tags: ['generic', 'core', 'schedule'],
  platform: 'core',
  connector: null,
  payload: Payload,
  result: TickEventSchema,
  validate(config) {
    const zone = timezoneProblems(config.timezone)
    if (zone.length > 0) return zone
    const parsed = parse(config.expression, config.timezone ?? 'UTC')
    if ('error' in parsed) return [{ path: '/expression', message: parsed.error }]
    if (nextOf(parsed.cron, REFERENCE) === null) return [{ path: '/expression', message: 'never matches a date' }]
    return []
  },
  schedule(config): TriggerSchedule {
    const timezone = config.timezone ?? 'UTC'
    const parsed = parse(config.expression, timezone)
    if ('error' in parsed) throw new Error(`cron expression ${parsed.error}`)
    return {
      expression: config.expression,
      timezone,
      ...catchUpOf(config),
      next: (after) => nextOf(parsed.cron, after),
    }
  },
})
