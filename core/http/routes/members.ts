import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { Page, pageRequest } from '../../domain/common.ts'
import { InviteMemberBody, Member, UpdateMemberBody } from '../../domain/member.ts'
import type { MemberService } from '../../services/members.ts'
import type { PeopleService } from '../../services/people.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { PageQuery, t } from '../schemas.ts'

const tags = ['members']
const UserParams = t.Object({ userId: t.String({ minLength: 1, maxLength: 64 }) })

const Invitation = T.Object({
  id: T.String(),
  organizationId: T.String(),
  email: T.String(),
  role: T.String(),
  invitedBy: T.String(),
  createdAt: T.String(),
  expiresAt: T.String(),
})

export function invitationRoutes(auth: AuthPlugin, people: PeopleService) {
  return new Elysia({ name: 'routes.invitations', prefix: '/v1/invitations' })
    .use(auth)
    .get('/', ({ principal, query }) => people.invitations(principal, pageRequest(query)), {
      permission: 'member:invite',
      query: PageQuery,
      detail: doc({
        summary: 'List the invitations not yet accepted, newest first',
        tags,
        permission: 'member:invite',
        response: Page(Invitation),
      }),
    })
    .delete('/:id', ({ principal, params }) => people.revokeInvitation(principal, params.id), {
      permission: 'member:invite',
      params: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
      detail: doc({
        summary: 'Withdraw an invitation',
        tags,
        permission: 'member:invite',
        errors: [404],
        response: T.Object({ id: T.String(), revoked: T.Literal(true) }),
      }),
    })
}

export function memberRoutes(auth: AuthPlugin, members: MemberService, people: PeopleService) {
  return new Elysia({ name: 'routes.members', prefix: '/v1/members' })
    .use(auth)
    .get('/', ({ principal, query }) => members.list(principal, pageRequest(query)), {
      permission: 'org:read',
      query: PageQuery,
      detail: doc({ summary: "List the organization's members", tags, permission: 'org:read', response: Page(Member) }),
    })
    .post('/', ({ principal, body }) => people.invite(principal, body), {
      permission: 'member:invite',
      body: InviteMemberBody,
      detail: doc({
        summary: 'Invite a person: answers the invitation with its token, shown once',
        description:
          'The person joins by POST /v1/auth/accept-invitation with the token (a new person also chooses a name and a password). Nobody becomes a member without accepting.',
        tags,
        permission: 'member:invite',
        response: T.Composite([Invitation, T.Object({ token: T.String() })]),
        errors: [409],
      }),
    })
    .get('/:userId', ({ principal, params }) => members.get(principal, params.userId), {
      permission: 'org:read',
      params: UserParams,
      detail: doc({ summary: 'Read a member', tags, permission: 'org:read', response: Member, errors: [404] }),
    })
    .patch('/:userId', ({ principal, params, body }) => members.setRole(principal, params.userId, body.role), {
      permission: 'member:update_role',
      params: UserParams,
      body: UpdateMemberBody,
      detail: doc({
        summary: "Change a member's role",
        tags,
        permission: 'member:update_role',
        response: Member,
        errors: [404],
      }),
    })
    .delete('/:userId', ({ principal, params }) => members.remove(principal, params.userId), {
      permission: 'member:remove',
      params: UserParams,
      detail: doc({
        summary: 'Remove a member: their keys are revoked and the live workflows they own pause (member_removed)',
        tags,
        permission: 'member:remove',
        errors: [404],
        response: T.Object({ userId: T.String(), removed: T.Literal(true), pausedWorkflowIds: T.Array(T.String()) }),
      }),
    })
}
