import { type Static, Type as t } from '@sinclair/typebox'
import { Timestamp, TimestampOrEmpty } from './common.ts'

export const ServiceAccount = t.Object(
  {
    id: t.String(),
    name: t.String(),
    description: t.String(),
    organizationId: t.String(),
    permissions: t.Array(t.String(), { description: 'explicit permission names, e.g. org:read' }),
    status: t.Union([t.Literal('active'), t.Literal('disabled')]),
    disabledAt: TimestampOrEmpty,
    createdAt: Timestamp,
    createdBy: t.String(),
    updatedAt: Timestamp,
  },
  { $id: 'ServiceAccount' },
)
export type ServiceAccount = Static<typeof ServiceAccount>

const PermissionList = t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 64 })

export const CreateServiceAccountBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 100 }),
  description: t.Optional(t.String({ maxLength: 500 })),
  permissions: PermissionList,
})
export type CreateServiceAccountBody = Static<typeof CreateServiceAccountBody>

export const UpdateServiceAccountBody = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  description: t.Optional(t.String({ maxLength: 500 })),
  permissions: t.Optional(PermissionList),
})
export type UpdateServiceAccountBody = Static<typeof UpdateServiceAccountBody>
