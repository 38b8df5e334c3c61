import { Elysia } from 'elysia'
import { WorkflowSchedule } from '../../domain/schedule.ts'
import type { ScheduleService } from '../../services/schedules.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams } from '../schemas.ts'

const tags = ['workflows']

/** `GET /v1/workflows/{id}/schedule`: the ticks of a workflow's time-based triggers. */
export function scheduleRoutes(auth: AuthPlugin, schedules: ScheduleService) {
  return new Elysia({ name: 'routes.schedules', prefix: '/v1/workflows' })
    .use(auth)
    .get('/:id/schedule', ({ principal, params }) => schedules.get(principal, params.id), {
      permission: 'workflow:read',
      params: IdParams,
      detail: doc({
        summary: "Read a workflow's schedule: next fire times of its cronjob and schedule triggers",
        description:
          'Shows the triggers of the live version. `active` is false, with a `reason`, when nothing ticks: not published, paused, archived, or no time-based trigger.',
        tags,
        permission: 'workflow:read',
        response: WorkflowSchedule,
        errors: [404],
      }),
    })
}
