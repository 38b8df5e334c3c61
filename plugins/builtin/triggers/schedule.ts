/**
 * The `schedule` trigger: an RFC 5545 recurrence (DTSTART with TZID, RRULE, optional EXDATE
 * and RDATE), as calendar apps write it. The host fires a run at every occurrence.
 */
import { defineTrigger, type TriggerSchedule, Type } from '../../../core/plugin/sdk.ts'
import { parseRecurrence, RecurrenceError } from './recurrence-rule.ts'
import { catchUpFields, catchUpOf, TickEventSchema, timezoneField, timezoneProblems } from './schedule-fields.ts'

const Payload = Type.Object({
  rrule: Type.String({
    minLength: 1,
    maxLength: 2000,
    description: 'recurrence lines, e.g. "DTSTART;TZID=Europe/Berlin:20260101T090000\\nRRULE:FREQ=WEEKLY;BYDAY=MO,WE"',
  }),
  timezone: Type.Optional(
    Type.String({ ...timezoneField, description: 'time zone of a DTSTART without TZID (default UTC)' }),
  ),
  ...catchUpFields,
})

export const schedule = defineTrigger({
  type: 'schedule',
  name: 'Schedule',
  description: 'Starts a run at every occurrence of a recurrence rule (RFC 5545 RRULE with DTSTART and TZID).',
  tags: ['generic', 'core', 'schedule'],
  platform: 'core',
  connector: null,
  payload: Payload,
  result: TickEventSchema,
  validate(config) {
    const zone = timezoneProblems(config.timezone)
    if (zone.length > 0) return zone
    try {
      const recurrence = parseRecurrence(config.rrule, config.timezone)
      // The cheap check first: a rule whose date parts allow no day would be expanded for centuries.
      if (recurrence.firstDay() === null || recurrence.next(recurrence.start - 1) === null) {
        return [{ path: '/rrule', message: 'has no occurrence (within ten years of DTSTART)' }]
      }
      return []
    } catch (error) {
      if (error instanceof RecurrenceError) return [{ path: '/rrule', message: error.message }]
      return [
        {
          path: '/rrule',
          message: `is not a valid recurrence: ${error instanceof Error ? error.message : String(error)}`,
        },
      ]
    }
  },
  schedule(config): TriggerSchedule {
    const recurrence = parseRecurrence(config.rrule, config.timezone)
    return {
      expression: config.rrule,
      timezone: recurrence.timezone,
      ...catchUpOf(config),
      next: (after) => recurrence.next(after),
    }
  },
})
