/**
 * Members of an organization (people; invitations and sign-in are in people.ts). Removing a
 * member pauses the live workflows they own (`member_removed`), revokes their keys, and signs
 * them out everywhere when it was their last organization.
 */
import type { Member } from '../domain/member.ts'
import type { Page, PageRequest } from '../domain/common.ts'
import { ROLE_PERMISSIONS, type Role } from '../domain/permissions.ts'
import { workflowPaused } from '../domain/run-events.ts'
import { notFound } from '../errors.ts'
import { type DomainEvent, publishEvents, recordEvents } from '../domain-events.ts'
import type { Bus } from '../ports/bus.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { DomainEventRecorder } from '../ports/engine.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import { apiKeys } from '../store/api-keys.ts'
import { type MemberRow, members } from '../store/members.ts'
import { workflows } from '../store/workflows.ts'
import { iso } from '../time.ts'
import { assertDelegable } from './api-keys.ts'
import { actorOf, type AuthService, type Principal } from './auth.ts'
import { guarded } from './operations.ts'

const toMember = (r: MemberRow): Member => ({
  userId: r.user_id,
  organizationId: r.organization_id,
  email: r.email,
  name: r.name,
  role: r.role,
  createdAt: iso(r.created_at),
})

/** The members of an organization: reading them, changing a role, removing one. */
export interface MemberService {
  /** One member, or a 404. */
  get(caller: Principal, userId: string): Promise<Member>
  /** The organization's members, a page at a time. */
  list(caller: Principal, page: PageRequest): Promise<Page<Member>>
  /** A new role; the caller can give only what it holds. */
  setRole(caller: Principal, userId: string, role: Role): Promise<Member>
  /** Removes a member: revokes their keys and pauses the live workflows they own. */
  remove(caller: Principal, userId: string): Promise<{ userId: string; removed: true; pausedWorkflowIds: string[] }>
}

export function createMemberService(deps: {
  store: Store
  bus: Bus
  clock: Clock
  ids: Ids
  auth: AuthService
  /** Called after a member is removed (people: end the sessions of a user left in no organization). */
  afterRemoval?: (userId: string) => Promise<void>
  /** Records workflow events so that the engine's listeners (schedules, live triggers) follow the pause in the same transaction. */
  recorder?: DomainEventRecorder
}): MemberService {
  const { store, clock } = deps
  const record = (tx: SqlExecutor, list: readonly DomainEvent[]) =>
    deps.recorder ? deps.recorder.record(tx, list) : recordEvents(tx, list)

  async function get(caller: Principal, userId: string): Promise<Member> {
    const row = await members.get(store, caller.organizationId, userId)
    if (!row) throw notFound('member')
    return toMember(row)
  }

  return guarded<MemberService>(
    'members',
    {
      get: ['org:read'],
      list: ['org:read'],
      setRole: ['member:update_role'],
      remove: ['member:remove'],
    },
    {
      get,
      async list(caller: Principal, page: PageRequest) {
        const rows = await members.list(store, caller.organizationId, page.limit + 1, page.offset)
        return {
          hasMore: rows.length > page.limit,
          items: rows.slice(0, page.limit).map(toMember),
          limit: page.limit,
          offset: page.offset,
        }
      },
      async setRole(caller: Principal, userId: string, role: Role): Promise<Member> {
        await get(caller, userId)
        assertDelegable(caller, ROLE_PERMISSIONS[role])
        await store.write((tx) => members.setRole(tx, caller.organizationId, userId, role))
        return get(caller, userId)
      },
      async remove(
        caller: Principal,
        userId: string,
      ): Promise<{ userId: string; removed: true; pausedWorkflowIds: string[] }> {
        await get(caller, userId)
        const at = clock.now()
        const { paused, recorded } = await store.write(async (tx) => {
          await members.remove(tx, caller.organizationId, userId)
          await apiKeys.revokeForUser(tx, caller.organizationId, userId, at)
          const owned = await workflows.byOwner(tx, caller.organizationId, userId)
          const pausedIds: string[] = []
          for (const w of owned) {
            if (w.live_version === null || w.archived_at !== null || w.live_status === 'paused') continue
            await workflows.update(tx, w.id, {
              live_status: 'paused',
              paused_reason: 'member_removed',
              updated_at: at,
              updated_by: actorOf(caller),
            })
            pausedIds.push(w.id)
          }
          const events = await record(
            tx,
            pausedIds.map((id) =>
              workflowPaused({ organizationId: caller.organizationId, workflowId: id }, 'member_removed', at, {
                userId,
              }),
            ),
          )
          return { paused: pausedIds, recorded: events }
        })
        publishEvents(deps.bus, recorded)
        deps.auth.invalidate({ all: true })
        await deps.afterRemoval?.(userId)
        return { userId, removed: true, pausedWorkflowIds: paused }
      },
    },
  )
}
