/**
 * People: human users, their sign-in sessions, invitations into organizations, and their
 * interest settings.
 *
 * - Passwords are argon2id hashes (the password port). A wrong password and an unknown email
 *   cost the same hashing time and answer the same 401.
 * - A session token (`sess_…`) is shown once, at sign-in; the store keeps its SHA-256. A session
 *   ends after `idleMs` without use or `maxAgeMs` after sign-in, at logout, when the user changes
 *   password (every other session), and when the user leaves their last organization.
 * - Failed sign-ins are counted per account and per client address, and wrong current passwords
 *   of a password change per account, in the store (sign-in-throttle.ts): an attempt is taken
 *   before the password is checked, and past the limit the caller gets 429 with `Retry-After`.
 * - An invitation carries an organization, an email and a role; the token (`invite_…`) is shown
 *   once to whoever invited. A new person joins by presenting it with a name and a password; a
 *   person who has an account joins by presenting it while signed in as that account. Accepting
 *   never checks an existing account's password: the inviter holds the token too.
 *
 * This file keeps the factory, its operation table, the accounts and interests; the use cases have
 * files of their own (people-sessions.ts, people-invitations.ts), sharing people-context.ts.
 */
import type { Page } from '../domain/common.ts'
import type { Role } from '../domain/permissions.ts'
import { badRequest, conflict, unauthorized } from '../errors.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { members } from '../store/members.ts'
import { users } from '../store/users.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'
import { invitationOperations } from './people-invitations.ts'
import {
  checkPassword,
  createPeopleContext,
  type Invitation,
  type Joined,
  type PeopleServiceDeps,
  type PeopleSettings,
  type RequestMeta,
  type SessionCaller,
  type SignedIn,
  type User,
} from './people-context.ts'
import { sessionOperations } from './people-sessions.ts'

export {
  checkPassword,
  DEFAULT_PEOPLE_SETTINGS,
  INVITATION_TOKEN_PREFIX,
  type Invitation,
  type Joined,
  type PeopleServiceDeps,
  type PeopleSettings,
  SESSION_TOKEN_PREFIX,
  type SessionCaller,
  type SignedIn,
  type User,
} from './people-context.ts'

/** People: accounts, sign-in sessions, invitations into organizations, and interests. */
export interface PeopleService {
  /** The sign-in, session and throttle settings in effect. */
  readonly settings: PeopleSettings
  /** The CLI's first user (and any later one an operator makes): a member of `organizationId` with `role`. */
  createUser(input: {
    email: string
    name: string
    password: string
    organizationId: string
    role: Role
  }): Promise<User>
  /** The operator's reset without email: a new password, and every session of the user ends. */
  resetPassword(email: string, password: string): Promise<User>
  /**
   * Signs in with an email and a password: a new session, its token shown once. 403 for a member
   * of an organization that requires single sign-on.
   */
  login(input: { email: string; password: string }, meta: RequestMeta): Promise<SignedIn>
  /** Checks a password as sign-in does (throttled) and answers the person's id; 401 when wrong. */
  provePassword(input: { email: string; password: string }, meta: RequestMeta): Promise<string>
  /** Starts a session for a person whose identity was proven elsewhere; `within` writes in its transaction. */
  signInAs(
    userId: string,
    meta: RequestMeta,
    within?: (tx: SqlExecutor, sessionId: string) => Promise<void>,
  ): Promise<SignedIn>
  /**
   * The session of a token, or 401: unknown, revoked, expired, idle too long, or ended by its
   * identity provider (`recheck`: asked now rather than at most an hour ago).
   */
  authenticate(token: string, options?: { recheck?: boolean }): Promise<SessionCaller>
  /** Ends a session. */
  logout(sessionId: string): Promise<{ loggedOut: true }>
  /** The signed-in person and when their session ends. */
  session(caller: SessionCaller): Promise<{ user: User; expiresAt: string }>
  /** A new password: every session of the user ends, and the caller gets a new one. */
  changePassword(
    caller: { userId: string },
    input: { currentPassword: string; newPassword: string },
    meta: RequestMeta,
  ): Promise<SignedIn>
  /** After a member is removed: a user left in no organization is signed out everywhere. */
  afterRemoval(userId: string): Promise<void>
  /** Invites an email into the caller's organization with a role; the token is shown once. */
  invite(caller: Principal, body: { email: string; role: Role }): Promise<Invitation & { token: string }>
  /** The organization's pending invitations, a page at a time. */
  invitations(caller: Principal, page: { limit: number; offset: number }): Promise<Page<Invitation>>
  /** Revokes a pending invitation. */
  revokeInvitation(caller: Principal, id: string): Promise<{ id: string; revoked: true }>
  /** Joins the invitation's organization, signed in as the invited email or as a new person. */
  acceptInvitation(
    input: { token: string; name?: string; password?: string },
    caller: { userId: string } | null,
    meta: RequestMeta,
  ): Promise<SignedIn | Joined>
  /** Whether the person's interests shape what they are shown. */
  interestSettings(userId: string): Promise<{ enabled: boolean }>
  /** Turns the person's interests on or off. */
  setInterestSettings(userId: string, enabled: boolean): Promise<{ enabled: boolean }>
  /** The person's interest tags. */
  interests(userId: string): Promise<{ tags: string[] }>
  /** Replaces the person's interest tags; unknown tags are a 400. */
  setInterests(userId: string, tags: readonly string[]): Promise<{ tags: string[] }>
}

export function createPeopleService(deps: PeopleServiceDeps): PeopleService {
  const { store, clock } = deps
  const ctx = createPeopleContext(deps)
  const { settings, userOf } = ctx

  return guarded<PeopleService>(
    'people',
    {
      invite: ['member:invite'],
      invitations: ['member:invite'],
      revokeInvitation: ['member:invite'],
      // A person's own account, sessions and sign-in: the caller is the person (or nobody yet).
      settings: null,
      createUser: null,
      resetPassword: null,
      login: null,
      provePassword: null,
      signInAs: null,
      authenticate: null,
      logout: null,
      session: null,
      changePassword: null,
      acceptInvitation: null,
      afterRemoval: null,
      interestSettings: null,
      setInterestSettings: null,
      interests: null,
      setInterests: null,
    },
    {
      settings,

      /** The CLI's first user (and any later one an operator makes): a member of `organizationId` with `role`. */
      async createUser(input: {
        email: string
        name: string
        password: string
        organizationId: string
        role: Role
      }): Promise<User> {
        checkPassword(input.password)
        const email = input.email.trim().toLowerCase()
        if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw badRequest('email must look like name@example.com')
        const hash = await deps.passwords.hash(input.password)
        const at = clock.now()
        const id = await store.write(async (tx) => {
          const existing = await users.byEmail(tx, email)
          const userId = existing?.id ?? deps.ids.next('usr')
          if (existing) {
            if (existing.password_hash)
              throw conflict(`a user with the email ${email} exists; use users reset-password to set a password`)
            await users.setPassword(tx, userId, hash, at)
          } else await users.insert(tx, { id: userId, email, name: input.name, passwordHash: hash, at })
          await members.add(tx, { organizationId: input.organizationId, userId, role: input.role, at })
          return userId
        })
        return userOf((await users.byId(store, id))!)
      },

      ...sessionOperations(ctx),
      ...invitationOperations(ctx),

      async interestSettings(userId: string): Promise<{ enabled: boolean }> {
        const row = await users.byId(store, userId)
        if (!row) throw unauthorized('no user behind this caller')
        return { enabled: row.interests_enabled === 1 }
      },
      async setInterestSettings(userId: string, enabled: boolean): Promise<{ enabled: boolean }> {
        const changed = await store.write((tx) => users.setInterestsEnabled(tx, userId, enabled))
        if (changed === 0) throw unauthorized('no user behind this caller')
        return { enabled }
      },
      async interests(userId: string): Promise<{ tags: string[] }> {
        const row = await users.byId(store, userId)
        if (!row) throw unauthorized('no user behind this caller')
        return { tags: JSON.parse(row.interest_tags) as string[] }
      },
      async setInterests(userId: string, tags: readonly string[]): Promise<{ tags: string[] }> {
        const known = await deps.knownTags()
        const unique = [...new Set(tags)]
        const unknown = unique.filter((t) => !known.has(t))
        if (unknown.length > 0)
          throw badRequest(
            `unknown tags: ${unknown.join(', ')}`,
            unknown.map((t) => ({ path: `/tags/${tags.indexOf(t)}`, message: `unknown tag ${t}` })),
          )
        const changed = await store.write((tx) => users.setInterestTags(tx, userId, unique))
        if (changed === 0) throw unauthorized('no user behind this caller')
        return { tags: unique }
      },
    },
  )
}
