/**
 * Sessions a provider began, checked against it again: at every session refresh (the console's
 * `GET /v1/auth/session`) and at least hourly on use, a refresh grant reads the person's groups
 * anew and applies them; a provider that refuses the refresh token, or groups that leave the
 * person in no organization, end the session. A session without a refresh token ends at its
 * first check (the person signs in again), unless the provider maps no groups. The provider
 * unreachable: the session goes on and the check is tried again at the next request. Sessions
 * nobody uses are checked too, by a sweep every few minutes (`sweepSessions`), so a person
 * removed from a group loses their sessions within the hour whether or not they come back.
 *
 * Also the operator's break-glass: a one-time sign-in link (`automaton users sign-in-link`), and
 * the organization setting `ssoRequired`.
 */
import * as oidc from 'openid-client'
import { errorMessage, isAppError, notFound, unauthorized } from '../errors.ts'
import { sha256Hex } from '../security/hash.ts'
import { oidcSessions, signInLinks, ssoRequirement } from '../store/oidc.ts'
import { organizations } from '../store/organizations.ts'
import { sessions, users } from '../store/users.ts'
import { iso } from '../time.ts'
import { applyRoles, desiredRoles } from './oidc-access.ts'
import { identityOf } from './oidc-claims.ts'
import type { OidcDeps } from './oidc.ts'
import { randomToken, type RequestMeta, type SignedIn } from './people-context.ts'

/** Groups are read again at least this often while a session is used. */
export const OIDC_CHECK_EVERY_MS = 3600_000
/** A one-time sign-in link works for this long. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000
export const SIGN_IN_LINK_PREFIX = 'signin_'
/** The periodic check looks for sessions due this often. */
export const OIDC_SWEEP_EVERY_MS = 5 * 60_000
/** Sessions read at a time by the sweep; a pass reads batches until none is due. */
export const OIDC_SWEEP_BATCH = 500
/** A pass stops starting new batches after this long (the next pass goes on where it stopped). */
export const OIDC_SWEEP_BUDGET_MS = 60_000

export interface OidcSessionChecks {
  /** False when the session was ended: its provider refused, or no organization is left. */
  checkSession(session: { sessionId: string; userId: string }, force: boolean): Promise<boolean>
  /**
   * The periodic check: every live session a provider began whose groups were not checked for
   * an hour is checked now, used or not, in batches until none is due (or a minute is spent);
   * a call while a pass runs joins it. Answers how many ended.
   */
  sweepSessions(): Promise<number>
  /** The operator's one-time sign-in link for a person (any organization's setting notwithstanding). */
  createSignInLink(email: string): Promise<{ token: string; expiresAt: string }>
  /** Signs in with a one-time link; 401 when unknown, used or expired. */
  useSignInLink(token: string, meta: RequestMeta): Promise<SignedIn>
  /** Requires (or stops requiring) single sign-on of an organization's members. */
  requireSso(organization: string, required: boolean): Promise<{ organizationId: string; ssoRequired: boolean }>
}

export function createOidcSessionChecks(deps: OidcDeps): OidcSessionChecks {
  const { store, clock, secretBox, providers, people } = deps

  async function end(sessionId: string, why: string): Promise<false> {
    deps.logger.info('a single sign-on session ended', { sessionId, why })
    await store.write((tx) => sessions.revoke(tx, sessionId, clock.now()))
    return false
  }

  /** Refreshes the grant and applies the groups it says; false when the session must end. */
  async function recheck(
    sessionId: string,
    userId: string,
    row: { provider: string; subject: string; sealed_refresh_token: string | null },
  ) {
    const { settings, config } = await providers.open(row.provider)
    if (!row.sealed_refresh_token) {
      // Nothing to ask the provider with: a provider that maps no groups has nothing to take away.
      if (settings.groupRoles.length > 0) return end(sessionId, 'no refresh token to check the groups with')
      await store.write((tx) => oidcSessions.checked(tx, sessionId, null, clock.now()))
      return true
    }
    let tokens: Awaited<ReturnType<typeof oidc.refreshTokenGrant>>
    try {
      tokens = await oidc.refreshTokenGrant(config, await secretBox.open(row.sealed_refresh_token))
    } catch (error) {
      if (error instanceof oidc.ResponseBodyError) return end(sessionId, `the provider refused: ${error.error}`)
      throw error
    }
    const identity = await identityOf(settings, config, tokens, row.subject)
    const desired = await desiredRoles(store, settings.groupRoles, identity.groups)
    const sealed = await secretBox.seal(identity.refreshToken ?? (await secretBox.open(row.sealed_refresh_token)))
    const changed = await store.write(async (tx) => {
      await oidcSessions.checked(tx, sessionId, sealed, clock.now())
      return applyRoles(tx, userId, desired, clock.now())
    })
    if (changed) deps.auth.invalidate({ all: true })
    if ((await users.memberships(store, userId)).length > 0) return true
    await people.afterRemoval(userId)
    return false
  }

  async function checkSession({ sessionId, userId }: { sessionId: string; userId: string }, force: boolean) {
    const row = await oidcSessions.byId(store, sessionId)
    if (!row || (!force && row.checked_at + OIDC_CHECK_EVERY_MS > clock.now())) return true
    // One check at a time: requests arriving together would spend one refresh token twice, and
    // a provider that rotates them takes the second use for a stolen token.
    const at = clock.now()
    const claimed = await store.write((tx) => oidcSessions.claim(tx, sessionId, row.checked_at, at))
    if (claimed === 0) return true
    try {
      return await recheck(sessionId, userId, row)
    } catch (error) {
      // The operator removed the provider: nothing can vouch for the session any longer.
      if (isAppError(error) && error.status === 404) return end(sessionId, 'its identity provider was removed')
      deps.logger.warn('could not check a single sign-on session with its provider', {
        sessionId,
        error: errorMessage(error),
      })
      // Tried again at the next request.
      await store.write((tx) => oidcSessions.claim(tx, sessionId, at, row.checked_at)).catch(() => 0)
      return true
    }
  }

  let sweeping: Promise<number> | null = null

  /**
   * Every session due, batch after batch in the order of their last check, until none is left or
   * the time budget is spent. The cursor moves past each batch, so a session whose provider
   * cannot be reached (left due) waits for the next pass instead of being read again.
   */
  async function sweep(): Promise<number> {
    const started = clock.now()
    const before = started - OIDC_CHECK_EVERY_MS
    let after: { checkedAt: number; sessionId: string } | undefined
    let ended = 0
    while (clock.now() - started < OIDC_SWEEP_BUDGET_MS) {
      const due = await oidcSessions.due(store, before, clock.now(), OIDC_SWEEP_BATCH, after)
      for (const session of due)
        if (!(await checkSession({ sessionId: session.session_id, userId: session.user_id }, false))) ended++
      if (due.length < OIDC_SWEEP_BATCH) break
      const last = due[due.length - 1]
      after = { checkedAt: Number(last.checked_at), sessionId: last.session_id }
    }
    return ended
  }

  return {
    checkSession,

    sweepSessions() {
      // A pass still under way (a slow provider) is joined, not doubled.
      sweeping ??= sweep().finally(() => {
        sweeping = null
      })
      return sweeping
    },

    async createSignInLink(email) {
      const person = await users.byEmail(store, email.trim())
      if (!person) throw notFound('user')
      const token = randomToken(SIGN_IN_LINK_PREFIX)
      const at = clock.now()
      const tokenHash = await sha256Hex(token)
      await store.write((tx) =>
        signInLinks.insert(tx, { tokenHash, userId: person.id, at, expiresAt: at + SIGN_IN_LINK_TTL_MS }),
      )
      return { token, expiresAt: iso(at + SIGN_IN_LINK_TTL_MS) }
    },

    async useSignInLink(token, meta) {
      const tokenHash = await sha256Hex(token)
      const link = await store.write((tx) => signInLinks.take(tx, tokenHash))
      if (!link || link.expires_at <= clock.now()) throw unauthorized('this sign-in link is unknown, used or expired')
      return people.signInAs(link.user_id, meta)
    },

    async requireSso(organization, required) {
      const organizationId = await organizations.idByIdOrName(store, organization)
      if (!organizationId) throw notFound('organization')
      await store.write((tx) => ssoRequirement.set(tx, organizationId, required))
      return { organizationId, ssoRequired: required }
    },
  }
}
