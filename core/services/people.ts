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
 */
import { ROLE_PERMISSIONS, type Role } from '../domain/permissions.ts'
import { AppError, badRequest, conflict, forbidden, notFound, unauthorized } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { Logger } from '../ports/logger.ts'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, type PasswordHasher } from '../ports/passwords.ts'
import { isUniqueViolation, type SqlExecutor, type Store } from '../ports/store.ts'
import { sha256Hex } from '../security/hash.ts'
import { members } from '../store/members.ts'
import { invitations, type InvitationRow, type MembershipRow, sessions, type UserRow, users } from '../store/users.ts'
import { iso } from '../time.ts'
import { assertDelegable } from './api-keys.ts'
import { actorOf, type Principal } from './auth.ts'
import { guarded } from './operations.ts'
import { createSignInThrottle, type ThrottleSettings } from './sign-in-throttle.ts'

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

const toInvitation = (r: InvitationRow): Invitation => ({
  id: r.id,
  organizationId: r.organization_id,
  email: r.email,
  role: r.role,
  invitedBy: r.invited_by,
  createdAt: iso(r.created_at),
  expiresAt: iso(r.expires_at),
})

interface RequestMeta {
  ip: string | null
  userAgent: string | null
}

function randomToken(prefix: string): string {
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

export function createPeopleService(deps: {
  store: Store
  clock: Clock
  ids: Ids
  logger: Logger
  passwords: PasswordHasher
  settings?: Partial<PeopleSettings>
  /** Tag slugs a user may choose as interests. */
  knownTags: () => Promise<ReadonlySet<string>> | ReadonlySet<string>
}) {
  const { store, clock } = deps
  const settings = { ...DEFAULT_PEOPLE_SETTINGS, ...deps.settings }
  const throttle = createSignInThrottle({ store, clock, settings })
  // The hash an unknown email is checked against, so that it costs what a known one does.
  let decoy: Promise<string> | null = null
  const decoyHash = () => (decoy ??= deps.passwords.hash(randomToken('decoy_')))

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

  async function startSession(
    tx: SqlExecutor,
    userId: string,
    meta: RequestMeta,
  ): Promise<{ token: string; expiresAt: number }> {
    const token = randomToken(SESSION_TOKEN_PREFIX)
    const at = clock.now()
    const expiresAt = at + settings.maxAgeMs
    await sessions.insert(tx, {
      id: deps.ids.next('ses'),
      tokenHash: await sha256Hex(token),
      userId,
      at,
      expiresAt,
      ip: meta.ip,
      userAgent: meta.userAgent?.slice(0, 512) ?? null,
    })
    return { token, expiresAt }
  }

  async function signedIn(userId: string, started: { token: string; expiresAt: number }): Promise<SignedIn> {
    const row = (await users.byId(store, userId))!
    return { token: started.token, expiresAt: iso(started.expiresAt), user: await userOf(row) }
  }

  const gone = () => new AppError(404, 'invitation not found, already used, revoked or expired')
  // The one refusal of an invitation presented without a session and without a new person's name
  // and password, or for an email that has an account: whoever holds a token learns no more.
  const signInToAccept = () =>
    unauthorized(
      'sign in as the invited person to accept this invitation, or give a name and a password to create an account',
    )

  async function openInvitation(token: string): Promise<InvitationRow> {
    if (!token.startsWith(INVITATION_TOKEN_PREFIX)) throw gone()
    const invitation = await invitations.byTokenHash(store, await sha256Hex(token))
    if (
      !invitation ||
      invitation.accepted_at !== null ||
      invitation.revoked_at !== null ||
      invitation.expires_at <= clock.now()
    )
      throw gone()
    return invitation
  }

  /** Marks the invitation used and makes the member, in one transaction. */
  async function join(tx: SqlExecutor, invitation: InvitationRow, userId: string, at: number): Promise<void> {
    if ((await invitations.accept(tx, invitation.id, userId, at)) === 0) throw gone()
    if (
      (await members.add(tx, { organizationId: invitation.organization_id, userId, role: invitation.role, at })) === 0
    ) {
      throw conflict('you are already a member of this organization')
    }
  }

  return guarded(
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

      /** The operator's reset without email: a new password, and every session of the user ends. */
      async resetPassword(email: string, password: string): Promise<User> {
        checkPassword(password)
        const row = await users.byEmail(store, email.trim())
        if (!row) throw notFound('user')
        const hash = await deps.passwords.hash(password)
        const at = clock.now()
        await store.write(async (tx) => {
          await users.setPassword(tx, row.id, hash, at)
          await sessions.revokeAllOf(tx, row.id, at)
          await throttle.forget(tx, row.email)
        })
        return userOf(row)
      },

      async login(input: { email: string; password: string }, meta: RequestMeta): Promise<SignedIn> {
        const email = input.email.trim().toLowerCase()
        const attempt = await throttle.signIn(email, meta.ip)
        const row = await users.byEmail(store, email)
        const ok = row?.password_hash
          ? await deps.passwords.verify(input.password, row.password_hash)
          : (await deps.passwords.verify(input.password, await decoyHash()), false)
        if (!row || !ok) throw unauthorized('wrong email or password')
        const started = await store.write(async (tx) => {
          await attempt.succeeded(tx)
          return startSession(tx, row.id, meta)
        })
        return signedIn(row.id, started)
      },

      /** The session of a token, or 401: unknown, revoked, expired or idle too long. */
      async authenticate(token: string): Promise<SessionCaller> {
        const row = await sessions.byTokenHash(store, await sha256Hex(token))
        const now = clock.now()
        if (!row || row.revoked_at !== null) throw unauthorized('unknown or ended session; sign in again')
        if (row.expires_at <= now || row.last_seen_at + settings.idleMs <= now)
          throw unauthorized('the session has expired; sign in again')
        const user = await users.byId(store, row.user_id)
        if (!user) throw unauthorized('unknown or ended session; sign in again')
        // Idle time is counted in minutes: one write a minute per session, not one per request.
        if (now - row.last_seen_at >= 60_000) {
          await store
            .write((tx) => sessions.touch(tx, row.id, now))
            .catch((error) => deps.logger.warn('could not record session use', { error: String(error) }))
        }
        return {
          sessionId: row.id,
          userId: row.user_id,
          email: user.email,
          memberships: await users.memberships(store, row.user_id),
          expiresAt: Math.min(row.expires_at, now + settings.idleMs),
        }
      },

      async logout(sessionId: string): Promise<{ loggedOut: true }> {
        await store.write((tx) => sessions.revoke(tx, sessionId, clock.now()))
        return { loggedOut: true }
      },

      async session(caller: SessionCaller) {
        const row = await users.byId(store, caller.userId)
        if (!row) throw unauthorized('unknown or ended session; sign in again')
        return { user: await userOf(row), expiresAt: iso(caller.expiresAt) }
      },

      /** A new password: every session of the user ends, and the caller gets a new one. */
      async changePassword(
        caller: { userId: string },
        input: { currentPassword: string; newPassword: string },
        meta: RequestMeta,
      ): Promise<SignedIn> {
        checkPassword(input.newPassword, 'newPassword')
        const row = await users.byId(store, caller.userId)
        if (!row) throw unauthorized('unknown or ended session; sign in again')
        // A stolen session must not make an unlimited oracle of the current password.
        const attempt = await throttle.passwordCheck(row.email)
        if (!row.password_hash || !(await deps.passwords.verify(input.currentPassword, row.password_hash))) {
          throw forbidden('the current password is wrong', [{ path: '/currentPassword', message: 'wrong password' }])
        }
        const hash = await deps.passwords.hash(input.newPassword)
        const started = await store.write(async (tx) => {
          const at = clock.now()
          await users.setPassword(tx, row.id, hash, at)
          await sessions.revokeAllOf(tx, row.id, at)
          await attempt.succeeded(tx)
          return startSession(tx, row.id, meta)
        })
        return signedIn(row.id, started)
      },

      async invite(caller: Principal, body: { email: string; role: Role }): Promise<Invitation & { token: string }> {
        assertDelegable(caller, ROLE_PERMISSIONS[body.role])
        const email = body.email.trim().toLowerCase()
        const existing = await users.byEmail(store, email)
        if (existing && (await members.get(store, caller.organizationId, existing.id)))
          throw conflict(`${email} is already a member of this organization`)
        const token = randomToken(INVITATION_TOKEN_PREFIX)
        const at = clock.now()
        const id = deps.ids.next('inv')
        const tokenHash = await sha256Hex(token)
        await store.write((tx) =>
          invitations.insert(tx, {
            id,
            organizationId: caller.organizationId,
            email,
            role: body.role,
            tokenHash,
            invitedBy: actorOf(caller),
            at,
            expiresAt: at + settings.invitationTtlMs,
          }),
        )
        return { ...toInvitation((await invitations.byId(store, caller.organizationId, id))!), token }
      },

      async invitations(caller: Principal, page: { limit: number; offset: number }) {
        const rows = await invitations.pending(store, caller.organizationId, clock.now(), page.limit + 1, page.offset)
        return {
          hasMore: rows.length > page.limit,
          items: rows.slice(0, page.limit).map(toInvitation),
          limit: page.limit,
          offset: page.offset,
        }
      },

      async revokeInvitation(caller: Principal, id: string): Promise<{ id: string; revoked: true }> {
        const changed = await store.write((tx) => invitations.revoke(tx, caller.organizationId, id, clock.now()))
        if (changed === 0) throw notFound('invitation')
        return { id, revoked: true }
      },

      /**
       * Joins the invitation's organization, one of two ways:
       * - signed in (`caller`) as the invited email: the session goes on, with the new membership;
       * - without a session, as a new person who chooses a name and a password, and is signed in.
       * An email that has an account, without its session, gets the same 401 as a request with no
       * name and password: its password is never checked here, so a token is no password oracle,
       * and nothing but a successful new account tells an email without an account apart.
       */
      async acceptInvitation(
        input: { token: string; name?: string; password?: string },
        caller: { userId: string } | null,
        meta: RequestMeta,
      ): Promise<SignedIn | Joined> {
        const invitation = await openInvitation(input.token)
        if (caller) {
          const user = await users.byId(store, caller.userId)
          if (!user) throw unauthorized('unknown or ended session; sign in again')
          if (user.email !== invitation.email)
            throw forbidden('this invitation is for someone else: sign in as the invited person to accept it')
          await store.write((tx) => join(tx, invitation, user.id, clock.now()))
          return { user: await userOf(user) }
        }
        if (input.name === undefined && input.password === undefined) throw signInToAccept()
        checkPassword(input.password ?? '')
        const name = input.name?.trim()
        if (!name) throw badRequest('name is required to create an account', [{ path: '/name', message: 'required' }])
        if (await users.byEmail(store, invitation.email)) throw signInToAccept()
        const hash = await deps.passwords.hash(input.password!)
        const userId = deps.ids.next('usr')
        const started = await store
          .write(async (tx) => {
            const at = clock.now()
            await users.insert(tx, { id: userId, email: invitation.email, name, passwordHash: hash, at })
            await join(tx, invitation, userId, at)
            return startSession(tx, userId, meta)
          })
          .catch((error) => {
            // The account was made meanwhile (by another acceptance, or the CLI).
            throw isUniqueViolation(error) ? signInToAccept() : error
          })
        return signedIn(userId, started)
      },

      /** After a member is removed: a user left in no organization is signed out everywhere. */
      async afterRemoval(userId: string): Promise<void> {
        const left = await users.memberships(store, userId)
        if (left.length === 0) await store.write((tx) => sessions.revokeAllOf(tx, userId, clock.now()))
      },

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

export type PeopleService = ReturnType<typeof createPeopleService>
