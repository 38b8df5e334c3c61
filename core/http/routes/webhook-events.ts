/** The events integration webhooks received: list, read, replay (organization-scoped). */
import { Elysia } from 'elysia'
import { Page, pageRequest } from '../../domain/common.ts'
import { WebhookResult } from '../../domain/run.ts'
import { WebhookEventFilter, WebhookEventRecord } from '../../domain/webhook-event.ts'
import type { WebhookEventService } from '../../services/webhook-events.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { PageQuery, t } from '../schemas.ts'

const tags = ['integrations']
const EventParams = t.Object({ eventId: t.String({ minLength: 1, maxLength: 64 }) })

export function webhookEventRoutes(auth: AuthPlugin, events: WebhookEventService) {
  return new Elysia({ name: 'routes.webhook-events', prefix: '/v1/webhook-events' })
    .use(auth)
    .get(
      '/',
      ({ principal, query }) => {
        const { limit, offset, ...filter } = query
        return events.list(principal, pageRequest({ limit, offset }), filter)
      },
      {
        permission: 'run:read',
        query: t.Composite([PageQuery, WebhookEventFilter]),
        detail: doc({
          summary: 'List the events integration webhooks received, newest first',
          description:
            'Filters: source (the plugin: payprovider, eventsource, chatapp, crosschain …), triggerType, action, providerEventId, workflowId and runId (events that started or resumed them).',
          tags,
          permission: 'run:read',
          response: Page(WebhookEventRecord),
        }),
      },
    )
    .get('/:eventId', ({ principal, params }) => events.get(principal, params.eventId), {
      permission: 'run:read',
      params: EventParams,
      detail: doc({
        summary: 'Read a received event',
        tags,
        permission: 'run:read',
        response: WebhookEventRecord,
        errors: [404],
      }),
    })
    .post('/:eventId/replay', ({ principal, params }) => events.replay(principal, params.eventId), {
      permission: 'workflow:execute',
      params: EventParams,
      detail: doc({
        summary: 'Replay a received event',
        description:
          'Routes the stored event again as a new event (replayOf names the original): it starts the matching live workflows and resumes the matching waiting runs of now. Answers the Webhook result object.',
        tags,
        permission: 'workflow:execute',
        response: WebhookResult,
        errors: [404],
      }),
    })
}
