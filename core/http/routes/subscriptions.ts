import { Elysia } from 'elysia'
import { WorkflowSubscriptions } from '../../domain/subscription.ts'
import type { SubscriptionService } from '../../services/subscriptions.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams } from '../schemas.ts'

/** `GET /v1/workflows/{id}/subscriptions`: the state of the subscriptions its triggers made with their platforms. */
export function subscriptionRoutes(auth: AuthPlugin, subscriptions: SubscriptionService) {
  return new Elysia({ name: 'routes.subscriptions', prefix: '/v1/workflows' })
    .use(auth)
    .get('/:id/subscriptions', ({ principal, params }) => subscriptions.get(principal, params.id), {
      permission: 'workflow:read',
      params: IdParams,
      detail: doc({
        summary: "Read a workflow's trigger subscriptions: state, expiry, last error",
        description:
          "One entry per subscription a trigger with onEnable made with its platform, current or past: enabled while the workflow is live, then disabling until the trigger's onDisable succeeds (retried with backoff for up to a day; a pause or archive never waits for it), disabled, or failed when it was given up. The values the trigger keeps (subscription ids, secrets) are never shown.",
        tags: ['workflows'],
        permission: 'workflow:read',
        response: WorkflowSubscriptions,
        errors: [404],
      }),
    })
}
