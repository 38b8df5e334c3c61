/** The organization's webhook secret (the event source's `?secret=`): read it, regenerate it. */
import { Elysia } from 'elysia'
import { WebhookSecret } from '../../domain/organization.ts'
import type { WebhookSecretService } from '../../services/webhook-secrets.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../plugins/auth.ts'
import { t } from '../schemas.ts'

const tags = ['integrations']
const OrgParams = t.Object({ orgId: t.String({ minLength: 1, maxLength: 64 }) })

export function organizationRoutes(auth: AuthPlugin, secrets: WebhookSecretService) {
  return new Elysia({ name: 'routes.organizations', prefix: '/v1/organizations' })
    .use(auth)
    .get('/:orgId/webhook-secret', ({ principal, params }) => secrets.reveal(principal, params.orgId), {
      permission: 'org:update',
      params: OrgParams,
      detail: doc({
        summary: 'Read the organization\'s webhook secret',
        description: 'The secret query parameter of POST /v1/orgs/{orgId}/integrations/eventsource. Made on first read. Another organization is a 404.',
        tags, permission: 'org:update', response: WebhookSecret, errors: [404],
      }),
    })
    .post('/:orgId/webhook-secret/regenerate', ({ principal, params }) => secrets.regenerate(principal, params.orgId), {
      permission: 'org:update',
      params: OrgParams,
      detail: doc({
        summary: 'Replace the organization\'s webhook secret',
        description: 'The previous secret stops working at once.',
        tags, permission: 'org:update', response: WebhookSecret, errors: [404],
      }),
    })
}
