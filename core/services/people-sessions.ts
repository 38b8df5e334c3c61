/**
 * Signing in and out: sign-in with a password (throttled, an unknown email costing what a known
 * one does), the session behind a token, logout, a new password (every other session ends), the
 * operator's reset, and the sign-out of a person left in no organization.
 */
import { forbidden, notFound, unauthorized } from '../errors.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { sha256Hex } from '../security/hash.ts'
import { ssoRequirement } from '../store/oidc.ts'
import { sessions, users } from '../store/users.ts'
import { iso } from '../time.ts'
import { notePersonAct } from './audit-context.ts'
import {
  checkPassword,
  type PeopleContext,
  type RequestMeta,
  type SessionCaller,
  type SignedIn,
  type User,
} from './people-context.ts'

/** The session operations of the people service. */
export function sessionOperations(ctx: PeopleContext) {
  const { deps, settings, throttle, userOf, startSession, signedIn } = ctx
  const { store, clock } = deps

  /**
   * Checks a person's password (throttled, an unknown email costing what a known one does) and
   * answers their id; 401 for a wrong email or password.
   */
  async function provePassword(input: { email: string; password: string }, meta: RequestMeta): Promise<string> {
    const email = input.email.trim().toLowerCase()
    const attempt = await throttle.signIn(email, meta.ip)
    const row = await users.byEmail(store, email)
    const ok = row?.password_hash
      ? await deps.passwords.verify(input.password, row.password_hash)
      : (await deps.passwords.verify(input.password, await ctx.decoyHash()), false)
    if (!row || !ok) throw unauthorized('wrong email or password')
    await store.write((tx) => attempt.succeeded(tx))
    return row.id
  }

  return {
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

    provePassword,

    async login(input: { email: string; password: string }, meta: RequestMeta): Promise<SignedIn> {
      const userId = await provePassword(input, meta)
      const required = await ssoRequirement.organizationsOf(store, userId)
      if (required.length > 0)
        throw forbidden(
          `${required.join(', ')} requires single sign-on: sign in with the identity provider (GET /v1/auth/oidc/login)`,
        )
      notePersonAct(userId, 'auth.signIn')
      const started = await store.write((tx) => startSession(tx, userId, meta))
      return signedIn(userId, started)
    },

    /** Starts a session for a person whose identity was proven elsewhere; `within` writes in the same transaction. */
    async signInAs(
      userId: string,
      meta: RequestMeta,
      within?: (tx: SqlExecutor, sessionId: string) => Promise<void>,
    ): Promise<SignedIn> {
      notePersonAct(userId, 'auth.signIn')
      const started = await store.write(async (tx) => {
        const session = await startSession(tx, userId, meta)
        await within?.(tx, session.id)
        return session
      })
      return signedIn(userId, started)
    },

    /** The session of a token, or 401: unknown, revoked, expired or idle too long. */
    async authenticate(token: string, options: { recheck?: boolean } = {}): Promise<SessionCaller> {
      const row = await sessions.byTokenHash(store, await sha256Hex(token))
      const now = clock.now()
      if (!row || row.revoked_at !== null) throw unauthorized('unknown or ended session; sign in again')
      if (row.expires_at <= now || row.last_seen_at + settings.idleMs <= now)
        throw unauthorized('the session has expired; sign in again')
      const user = await users.byId(store, row.user_id)
      if (!user) throw unauthorized('unknown or ended session; sign in again')
      const check = deps.sessionCheck
      if (check && !(await check({ sessionId: row.id, userId: row.user_id }, options.recheck === true)))
        throw unauthorized('the identity provider ended this session; sign in again')
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

    /** After a member is removed: a user left in no organization is signed out everywhere. */
    async afterRemoval(userId: string): Promise<void> {
      const left = await users.memberships(store, userId)
      if (left.length === 0) await store.write((tx) => sessions.revokeAllOf(tx, userId, clock.now()))
    },
  }
}
