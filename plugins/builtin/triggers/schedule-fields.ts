/**
 * What the two time-based triggers (`cronjob`, `schedule`) share: the time zone and catch-up
 * fields of their payloads, and the event each tick starts a run with.
 */
import { type CatchUpPolicy, Type } from '../../../core/plugin/sdk.ts'
import { isTimeZone } from './time-zones.ts'

export const DEFAULT_CATCH_UP_LIMIT = 10
export const MAX_CATCH_UP_LIMIT = 100

export const timezoneField = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'IANA time zone the expression is read in, such as Europe/Berlin (default UTC)',
})

export const catchUpFields = {
  catchUp: Type.Optional(
    Type.Union([Type.Literal('skip'), Type.Literal('last'), Type.Literal('all')], {
      description:
        'ticks missed while the service was down: skip (default) starts no run for them, last one run for the latest, all one run each',
    }),
  ),
  catchUpLimit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_CATCH_UP_LIMIT,
      description: `with catchUp "all": at most this many missed ticks run, the latest ones (default ${DEFAULT_CATCH_UP_LIMIT})`,
    }),
  ),
}

export interface CatchUpConfig {
  catchUp?: CatchUpPolicy
  catchUpLimit?: number
}

export const catchUpOf = (config: CatchUpConfig) => ({
  catchUp: config.catchUp ?? 'skip',
  catchUpLimit: config.catchUpLimit ?? DEFAULT_CATCH_UP_LIMIT,
})

/** A problem with a time zone field, or none. */
export function timezoneProblems(timezone: string | undefined, path = '/timezone') {
  if (timezone === undefined || isTimeZone(timezone)) return []
  return [{ path, message: `"${timezone}" is not a known time zone; use an IANA name such as Europe/Berlin, or UTC` }]
}

/** The event a tick starts a run with: `{{$trigger.body.scheduledFor}}`. */
export const TickEventSchema = Type.Object({
  type: Type.String({ description: 'the trigger type: cronjob or schedule' }),
  body: Type.Object({
    scheduledFor: Type.String({ format: 'date-time', description: 'the tick this run is for' }),
    firedAt: Type.String({ format: 'date-time', description: 'when the scheduler started the run' }),
    scheduleId: Type.String(),
    expression: Type.String({ description: 'the cron expression or rrule, as written' }),
    timezone: Type.String(),
    catchUp: Type.Boolean({
      description: 'true when the tick was missed (the service was down) and runs late by the catchUp setting',
    }),
  }),
  headers: Type.Record(Type.String(), Type.String()),
  receivedAt: Type.String({ format: 'date-time' }),
})
