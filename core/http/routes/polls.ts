import { Elysia, t } from 'elysia'
import { PolledTrigger, WorkflowPolls } from '../../domain/poll.ts'
import type { PollService } from '../../services/polls.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams } from '../schemas.ts'

const tags = ['workflows']

/** `GET /v1/workflows/{id}/polls` and `POST …/polls/{nodeId}/reset`: the state of polling triggers. */
export function pollRoutes(auth: AuthPlugin, polls: PollService) {
  return new Elysia({ name: 'routes.polls', prefix: '/v1/workflows' })
    .use(auth)
    .get('/:id/polls', ({ principal, params }) => polls.get(principal, params.id), {
      permission: 'workflow:read',
      params: IdParams,
      detail: doc({
        summary: "Read a workflow's polling triggers: cursor, remembered item keys, last poll",
        description:
          'One entry per polling trigger node of the live version (feed-item, …). Each new item a poll finds starts one run; the keys of items already seen are remembered so that none starts twice.',
        tags,
        permission: 'workflow:read',
        response: WorkflowPolls,
        errors: [404],
      }),
    })
    .post('/:id/polls/:nodeId/reset', ({ principal, params }) => polls.reset(principal, params.id, params.nodeId), {
      permission: 'workflow:update',
      params: t.Object({ id: t.String(), nodeId: t.String() }),
      detail: doc({
        summary: 'Reset a polling trigger: forget its cursor and remembered keys',
        description:
          'The next poll records the items then in the source and starts no run for them (unless the trigger says fireExisting), as the first poll after publishing does. A poll in flight during the reset commits nothing.',
        tags,
        permission: 'workflow:update',
        response: PolledTrigger,
        errors: [404],
      }),
    })
}
