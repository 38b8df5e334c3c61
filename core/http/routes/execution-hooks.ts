/**
 * Execution webhooks: the endpoints an organization registers for run and node events, and the
 * delivery records. Three plugins, composed in the order the API document lists them: the
 * collection, the deliveries, one endpoint.
 */
import { Elysia } from 'elysia'
import { Page, pageRequest } from '../../domain/common.ts'
import {
  CreatedHookEndpoint,
  CreateHookEndpointBody,
  DELIVERY_STATUSES,
  HookDelivery,
  HookEndpoint,
  RegenerateSecretBody,
  UpdateHookEndpointBody,
} from '../../domain/execution-hook.ts'
import type { ExecutionHookService } from '../../services/execution-hooks.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams, PageQuery, t } from '../schemas.ts'

const tags = ['execution webhooks']
const permission = 'execution:webhook' as const
const Id = t.String({ minLength: 1, maxLength: 64 })

export function executionHookRoutes(auth: AuthPlugin, hooks: ExecutionHookService) {
  return new Elysia({ name: 'routes.execution-webhooks' })
    .use(hookCollectionRoutes(auth, hooks))
    .use(hookDeliveryRoutes(auth, hooks))
    .use(hookEndpointRoutes(auth, hooks))
}

/** Register an endpoint, list them. */
function hookCollectionRoutes(auth: AuthPlugin, hooks: ExecutionHookService) {
  return new Elysia({ name: 'routes.execution-webhooks.collection', prefix: '/v1/execution-webhooks' })
    .use(auth)
    .post('', ({ principal, body }) => hooks.create(principal, body), {
      permission,
      body: CreateHookEndpointBody,
      detail: doc({
        summary:
          'Register an endpoint for run and node events; the signing secret is in data.signingSecret and is shown once',
        description:
          'The URL must be https (http only for hosts the operator allows) and must not resolve to a private, loopback, link-local or metadata address.',
        tags,
        permission,
        response: CreatedHookEndpoint,
      }),
    })
    .get('', ({ principal, query }) => hooks.list(principal, pageRequest(query)), {
      permission,
      query: PageQuery,
      detail: doc({
        summary: "List the organization's execution webhooks, newest first",
        tags,
        permission,
        response: Page(HookEndpoint),
      }),
    })
}

/** Delivery records: list, read, retry, replay. */
function hookDeliveryRoutes(auth: AuthPlugin, hooks: ExecutionHookService) {
  return new Elysia({ name: 'routes.execution-webhooks.deliveries', prefix: '/v1/execution-webhooks' })
    .use(auth)
    .get(
      '/deliveries',
      ({ principal, query }) =>
        hooks.listDeliveries(
          principal,
          { endpointId: query.endpointId, status: query.status, runId: query.runId },
          pageRequest(query),
        ),
      {
        permission,
        query: t.Composite([
          PageQuery,
          t.Object({
            endpointId: t.Optional(Id),
            status: t.Optional(t.Union(DELIVERY_STATUSES.map((s) => t.Literal(s)))),
            runId: t.Optional(Id),
          }),
        ]),
        detail: doc({ summary: 'List delivery records, newest first', tags, permission, response: Page(HookDelivery) }),
      },
    )
    .get('/deliveries/:id', ({ principal, params }) => hooks.getDelivery(principal, params.id), {
      permission,
      params: IdParams,
      detail: doc({
        summary: 'Read a delivery record, with the payload that was sent',
        tags,
        permission,
        response: HookDelivery,
        errors: [404],
      }),
    })
    .post('/deliveries/:id/retry', ({ principal, params }) => hooks.retry(principal, params.id), {
      permission,
      params: IdParams,
      detail: doc({
        summary: 'Send a failed delivery again now (the same record)',
        description: 'For a delivery that gave up, or one waiting for its next retry. Answers the record it queued.',
        tags,
        permission,
        response: HookDelivery,
        errors: [404, 409],
      }),
    })
    .post('/deliveries/:id/replay', ({ principal, params }) => hooks.replay(principal, params.id), {
      permission,
      params: IdParams,
      detail: doc({
        summary: 'Send an event again as a new delivery record, with the same webhook-id',
        tags,
        permission,
        response: HookDelivery,
        errors: [404, 409],
      }),
    })
}

/** One endpoint: read, change, delete, enable, disable, a new signing secret. */
function hookEndpointRoutes(auth: AuthPlugin, hooks: ExecutionHookService) {
  return new Elysia({ name: 'routes.execution-webhooks.endpoint', prefix: '/v1/execution-webhooks' })
    .use(auth)
    .get('/:id', ({ principal, params }) => hooks.get(principal, params.id), {
      permission,
      params: IdParams,
      detail: doc({ summary: 'Read an execution webhook', tags, permission, response: HookEndpoint, errors: [404] }),
    })
    .patch('/:id', ({ principal, params, body }) => hooks.update(principal, params.id, body), {
      permission,
      params: IdParams,
      body: UpdateHookEndpointBody,
      detail: doc({
        summary: "Change an endpoint's name, description, URL, event types or retries",
        description:
          'A new URL is checked as at creation. Deliveries already queued go to the new URL on their next attempt; a new maxRetries applies to deliveries made after the change.',
        tags,
        permission,
        response: HookEndpoint,
        errors: [404],
      }),
    })
    .delete('/:id', ({ principal, params }) => hooks.remove(principal, params.id), {
      permission,
      params: IdParams,
      detail: doc({
        summary: 'Delete an endpoint; answers the deleted endpoint',
        description:
          'Its delivery records stay readable; deliveries still queued are closed unsent ("the endpoint no longer exists").',
        tags,
        permission,
        response: HookEndpoint,
        errors: [404],
      }),
    })
    .post('/:id/enable', ({ principal, params }) => hooks.enable(principal, params.id), {
      permission,
      params: IdParams,
      detail: doc({
        summary: 'Enable an endpoint: new events are delivered to it again',
        tags,
        permission,
        response: HookEndpoint,
        errors: [404],
      }),
    })
    .post('/:id/disable', ({ principal, params }) => hooks.disable(principal, params.id), {
      permission,
      params: IdParams,
      detail: doc({
        summary: 'Disable an endpoint: nothing more is sent to it',
        tags,
        permission,
        response: HookEndpoint,
        errors: [404],
      }),
    })
    .post(
      '/:id/regenerate-secret',
      ({ principal, params, body }) => hooks.regenerateSecret(principal, params.id, body ?? {}),
      {
        permission,
        params: IdParams,
        body: t.Optional(RegenerateSecretBody),
        detail: doc({
          summary: 'Replace the signing secret; the new one is in data.signingSecret and is shown once',
          description:
            'Until previousSecretTtlSeconds (default 86400) have passed, deliveries carry a second signature made with the old secret.',
          tags,
          permission,
          response: CreatedHookEndpoint,
          errors: [404],
        }),
      },
    )
}
