/**
 * What the people service's use cases share (sessions, invitations, accounts): the settings, the
 * sign-in throttle, the person as answered, and the start of a session.
 */
import type { Role } from '../domain/permissions.ts'
import { badRequest } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { Logger } from '../ports/logger.ts'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, type PasswordHasher } from '../ports/passwords.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import { sha256Hex } from '../security/hash.ts'
import { type InvitationRow, type MembershipRow, sessions, type UserRow, users } from '../store/users.ts'
import { iso } from '../time.ts'
import { createSignInThrottle, type SignInThrottle, type ThrottleSettings } from './sign-in-throttle.ts'

export const SESSION_TOKEN_PREFIX = 'sess_'
export const INVITATION_TOKEN_PREFIX = 'invite_'

export interface PeopleSettings extends ThrottleSettings {
  /** A session unused this long ends. Default 12 h. */
  idleMs: number
  /** A session ends this long after sign-in, however much it is used. Default 30 days. */
  maxAgeMs: number
  /** An invitation can be accepted for this long. Default 7 days. */
  invitationTtlMs: number
}

export const DEFAULT_PEOPLE_SETTINGS: PeopleSettings = {
  idleMs: 12 * 3600_000,
  maxAgeMs: 30 * 24 * 3600_000,
  invitationTtlMs: 7 * 24 * 3600_000,
  failuresPerAccount: 5,
  failuresPerAddress: 20,
  failureWindowMs: 15 * 60_000,
}

export interface User {
  id: string
  email: string
  name: string
  createdAt: string
  memberships: Array<{ organizationId: string; organizationName: string; role: Role }>
}

export interface SignedIn {
  token: string
  expiresAt: string
  user: User
}

/** A signed-in person who accepted an invitation: their session goes on, with one more membership. */
export interface Joined {
  user: User
}

/** A caller signed in with a session, before an organization is chosen. */
export interface SessionCaller {
  sessionId: string
  userId: string
  email: string
  memberships: readonly MembershipRow[]
  expiresAt: number
}

export interface Invitation {
  id: string
  organizationId: string
  email: string
  role: Role
  invitedBy: string
  createdAt: string
  expiresAt: string
}

export const toInvitation = (r: InvitationRow): Invitation => ({
  id: r.id,
  organizationId: r.organization_id,
  email: r.email,
  role: r.role,
  invitedBy: r.invited_by,
  createdAt: iso(r.created_at),
  expiresAt: iso(r.expires_at),
})

export interface RequestMeta {
  ip: string | null
  userAgent: string | null
}

export function randomToken(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  let text = ''
  for (const b of bytes) text += String.fromCharCode(b)
  return prefix + btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

export function checkPassword(password: string, field = 'password'): void {
  if (password.length < PASSWORD_MIN_LENGTH)
    throw badRequest(`${field} must be at least ${PASSWORD_MIN_LENGTH} characters`, [
      { path: `/${field}`, message: 'too short' },
    ])
  if (password.length > PASSWORD_MAX_LENGTH)
    throw badRequest(`${field} must be at most ${PASSWORD_MAX_LENGTH} characters`, [
      { path: `/${field}`, message: 'too long' },
    ])
}

export interface PeopleServiceDeps {
  store: Store
  clock: Clock
  ids: Ids
  logger: Logger
  passwords: PasswordHasher
  settings?: Partial<PeopleSettings>
  /** Tag slugs a user may choose as interests. */
  knownTags: () => Promise<ReadonlySet<string>> | ReadonlySet<string>
  /**
   * Checks a session begun elsewhere (single sign-on) again: false ends it. Called on every use;
   * it decides when to ask its provider (`force`: now).
   */
  sessionCheck?: (session: { sessionId: string; userId: string }, force: boolean) => Promise<boolean>
}

export interface PeopleContext {
  deps: PeopleServiceDeps
  settings: PeopleSettings
  throttle: SignInThrottle
  /** The hash an unknown email is checked against, so that it costs what a known one does. */
  decoyHash(): Promise<string>
  /** A person as answered, with their memberships. */
  userOf(row: UserRow): Promise<User>
  /** Starts a session of `userId` inside `tx`: its id, its token (shown once), and when it ends. */
  startSession(
    tx: SqlExecutor,
    userId: string,
    meta: RequestMeta,
  ): Promise<{ id: string; token: string; expiresAt: number }>
  /** The answer to a sign-in: the session started and the person. */
  signedIn(userId: string, started: { token: string; expiresAt: number }): Promise<SignedIn>
}

export function createPeopleContext(deps: PeopleServiceDeps): PeopleContext {
  const { store, clock } = deps
  const settings = { ...DEFAULT_PEOPLE_SETTINGS, ...deps.settings }
  const throttle = createSignInThrottle({ store, clock, settings })
  let decoy: Promise<string> | null = null

  async function userOf(row: UserRow): Promise<User> {
    const ms = await users.memberships(store, row.id)
    return {
      id: row.id,
      email: row.email,
      name: row.name,
      createdAt: iso(row.created_at),
      memberships: ms.map((m) => ({
        organizationId: m.organization_id,
        organizationName: m.organization_name,
        role: m.role,
      })),
    }
  }

  return {
    deps,
    settings,
    throttle,
    decoyHash: () => (decoy ??= deps.passwords.hash(randomToken('decoy_'))),
    userOf,
    async startSession(tx, userId, meta) {
      const token = randomToken(SESSION_TOKEN_PREFIX)
      const at = clock.now()
      const expiresAt = at + settings.maxAgeMs
      const id = deps.ids.next('ses')
      await sessions.insert(tx, {
        id,
        tokenHash: await sha256Hex(token),
        userId,
        at,
        expiresAt,
        ip: meta.ip,
        userAgent: meta.userAgent?.slice(0, 512) ?? null,
      })
      return { id, token, expiresAt }
    },
    async signedIn(userId, started) {
      const row = (await users.byId(store, userId))!
      return { token: started.token, expiresAt: iso(started.expiresAt), user: await userOf(row) }
    },
  }
}
