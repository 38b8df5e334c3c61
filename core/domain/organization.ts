import { type Static, Type as t } from '@sinclair/typebox'
import { Timestamp } from './common.ts'

export const Organization = t.Object(
  {
    id: t.String(),
    name: t.String(),
    createdAt: Timestamp,
  },
  { $id: 'Organization' },
)
export type Organization = Static<typeof Organization>

export const WebhookSecret = t.Object(
  {
    organizationId: t.String(),
    webhookSecret: t.String({
      description: 'the secret query parameter of POST /v1/orgs/{orgId}/integrations/eventsource',
    }),
    updatedAt: Timestamp,
  },
  { $id: 'WebhookSecret' },
)
export type WebhookSecret = Static<typeof WebhookSecret>
