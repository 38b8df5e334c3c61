import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { Page, pageRequest } from '../../domain/common.ts'
import { InviteMemberBody, Member, UpdateMemberBody } from '../../domain/member.ts'
import type { MemberService } from '../../services/members.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { PageQuery, t } from '../schemas.ts'

const tags = ['members']
const UserParams = t.Object({ userId: t.String({ minLength: 1, maxLength: 64 }) })

export function memberRoutes(auth: AuthPlugin, members: MemberService) {
  return new Elysia({ name: 'routes.members', prefix: '/v1/members' })
    .use(auth)
    .get('/', ({ principal, query }) => members.list(principal, pageRequest(query)), {
      permission: 'org:read',
      query: PageQuery,
      detail: doc({ summary: 'List the organization\'s members', tags, permission: 'org:read', response: Page(Member) }),
    })
    .post('/', ({ principal, body }) => members.invite(principal, body), {
      permission: 'member:invite',
      body: InviteMemberBody,
      detail: doc({ summary: 'Add a member (created by email when new)', tags, permission: 'member:invite', response: Member }),
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
      detail: doc({ summary: 'Change a member\'s role', tags, permission: 'member:update_role', response: Member, errors: [404] }),
    })
    .delete('/:userId', ({ principal, params }) => members.remove(principal, params.userId), {
      permission: 'member:remove',
      params: UserParams,
      detail: doc({
        summary: 'Remove a member: their keys are revoked and the live workflows they own pause (member_removed)', tags, permission: 'member:remove', errors: [404],
        response: T.Object({ userId: T.String(), removed: T.Literal(true), pausedWorkflowIds: T.Array(T.String()) }),
      }),
    })
}
