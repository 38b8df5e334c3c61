import { type Static, Type as t } from '@sinclair/typebox'
import { Timestamp } from './common.ts'
import { ROLES } from './permissions.ts'

const Role = t.Union(ROLES.map((r) => t.Literal(r)))

export const Member = t.Object(
  {
    userId: t.String(),
    organizationId: t.String(),
    email: t.String(),
    name: t.String(),
    role: Role,
    createdAt: Timestamp,
  },
  { $id: 'Member' },
)
export type Member = Static<typeof Member>

export const InviteMemberBody = t.Object({
  email: t.String({ minLength: 3, maxLength: 320, pattern: '^[^@\\s]+@[^@\\s]+$' }),
  name: t.Optional(t.String({ maxLength: 200 })),
  role: Role,
})
export type InviteMemberBody = Static<typeof InviteMemberBody>

export const UpdateMemberBody = t.Object({ role: Role })
