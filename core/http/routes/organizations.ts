/** The organization's webhook secret (the event source's `?secret=`): read it, regenerate it. */
import { Elysia } from 'elysia'
import { WebhookSecret } from '../../domain/organization.ts'
import { OrganizationSettings, OrganizationSettingsBody } from '../../domain/retention.ts'
import type { OrganizationSettingsService } from '../../services/organization-settings.ts'
import type { OrganizationWebhookSecretService } from '../../services/organization-webhook-secret.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { t } from '../schemas.ts'

const tags = ['integrations']
const OrgParams = t.Object({ orgId: t.String({ minLength: 1, maxLength: 64 }) })

export function organizationRoutes(
  auth: AuthPlugin,
  secrets: OrganizationWebhookSecretService,
  settings: OrganizationSettingsService,
) {
  return new Elysia({ name: 'routes.organizations', prefix: '/v1/organizations' })
    .use(auth)
    .get('/:orgId/webhook-secret', ({ principal, params }) => secrets.reveal(principal, params.orgId), {
      permission: 'org:update',
      params: OrgParams,
      detail: doc({
        summary: "Read the organization's webhook secret",
        description:
          'The secret query parameter of POST /v1/orgs/{orgId}/integrations/eventsource. Made on first read. Another organization is a 404.',
        tags,
        permission: 'org:update',
        response: WebhookSecret,
        errors: [404],
      }),
    })
    .post('/:orgId/webhook-secret/regenerate', ({ principal, params }) => secrets.regenerate(principal, params.orgId), {
      permission: 'org:update',
      params: OrgParams,
      detail: doc({
        summary: "Replace the organization's webhook secret",
        description: 'The previous secret stops working at once.',
        tags,
        permission: 'org:update',
        response: WebhookSecret,
        errors: [404],
      }),
    })
    .get('/:orgId/settings', ({ principal, params }) => settings.get(principal, params.orgId), {
      permission: 'org:read',
      params: OrgParams,
      detail: doc({
        summary: "Read the organization's settings",
        tags: ['organizations'],
        permission: 'org:read',
        response: OrganizationSettings,
        errors: [404],
      }),
    })
    .put('/:orgId/settings', ({ principal, params, body }) => settings.put(principal, params.orgId, body), {
      permission: 'org:update',
      params: OrgParams,
      body: OrganizationSettingsBody,
      detail: doc({
        summary: "Change the organization's settings",
        description:
          "runRetention: how long its finished runs are kept (`30d`, `12h`, `90m`; `0` for ever; null follows the installation's AUTOMATON_RUN_RETENTION). A workflow's own runRetention may shorten it. ssoRequired: true refuses password sign-in to its members (single sign-on only; the operator's `users sign-in-link` is the break-glass). Each field left out stays as it is.",
        tags: ['organizations'],
        permission: 'org:update',
        response: OrganizationSettings,
        errors: [400, 404],
      }),
    })
}
