/**
 * Who a provider's identity is here, and its session: a person linked before, a first sign-in
 * created just in time (email verified, JIT on, an organization from the groups), or an existing
 * account's email, which waits for that account's password (a link token). The groups are applied
 * and the session started in one place (`signIn`).
 */
import type { OidcProviderSettings } from '../domain/oidc.ts'
import { conflict, forbidden } from '../errors.ts'
import { isUniqueViolation } from '../ports/store.ts'
import { sha256Hex } from '../security/hash.ts'
import { oidcAuthorizations, oidcIdentities, oidcSessions } from '../store/oidc.ts'
import { users } from '../store/users.ts'
import { applyRoles, desiredRoles } from './oidc-access.ts'
import type { OidcIdentity } from './oidc-claims.ts'
import type { OidcDeps, OidcFinished } from './oidc.ts'
import { randomToken, type RequestMeta, type SignedIn } from './people-context.ts'

export const LINK_TOKEN_PREFIX = 'ssolink_'

export function createOidcAdmission(deps: OidcDeps) {
  const { store, clock, secretBox, people } = deps

  /** Applies the groups and starts a session; a first sign-in creates the person. */
  async function signIn(
    settings: OidcProviderSettings,
    identity: OidcIdentity,
    known: string | null,
    meta: RequestMeta,
  ): Promise<SignedIn> {
    const desired = await desiredRoles(store, settings.groupRoles, identity.groups)
    if (!known && ![...desired.values()].some(Boolean))
      throw forbidden('none of your groups at the identity provider gives access to an organization here')
    const at = clock.now()
    const { userId, changed } = await store
      .write(async (tx) => {
        let id = known
        if (!id) {
          id = deps.ids.next('usr')
          await users.insert(tx, { id, email: identity.email!, name: identity.name, passwordHash: null, at })
          await oidcIdentities.link(tx, identity.provider, identity.subject, id, at)
        }
        return { userId: id, changed: await applyRoles(tx, id, desired, at) }
      })
      .catch((error) => {
        // Two first sign-ins of one new person at once: the other made the account; this one signs in again.
        if (isUniqueViolation(error))
          throw conflict('this account was created by another sign-in just now: sign in again')
        throw error
      })
    if (changed) deps.auth.invalidate({ all: true })
    if ((await users.memberships(store, userId)).length === 0) {
      await people.afterRemoval(userId)
      throw forbidden('none of your groups at the identity provider gives access to an organization here')
    }
    const sealed = identity.refreshToken ? await secretBox.seal(identity.refreshToken) : null
    return people.signInAs(userId, meta, (tx, sessionId) =>
      oidcSessions
        .insert(tx, {
          session_id: sessionId,
          provider: identity.provider,
          subject: identity.subject,
          sealed_refresh_token: sealed,
          checked_at: at,
          sid: identity.sid ?? null,
        })
        .then(() => undefined),
    )
  }

  /** Keeps the identity while the person gives their password; answers the link token. */
  async function pendingLink(identity: OidcIdentity, userId: string, returnTo: string): Promise<string> {
    const token = randomToken(LINK_TOKEN_PREFIX)
    const sealed = await secretBox.seal(JSON.stringify(identity))
    const stateHash = await sha256Hex(token)
    await store.write((tx) =>
      oidcAuthorizations.insert(tx, {
        state_hash: stateHash,
        provider: identity.provider,
        sealed_verifier: sealed,
        return_to: returnTo,
        subject: identity.subject,
        user_id: userId,
        created_at: clock.now(),
      }),
    )
    return token
  }

  async function admit(
    settings: OidcProviderSettings,
    identity: OidcIdentity,
    returnTo: string,
    meta: RequestMeta,
  ): Promise<OidcFinished> {
    const known = await oidcIdentities.userOf(store, identity.provider, identity.subject)
    if (!known) {
      if (!identity.email || !identity.emailVerified)
        throw forbidden('the identity provider did not say that your email address is verified')
      const existing = await users.byEmail(store, identity.email)
      if (existing)
        return {
          kind: 'link',
          token: await pendingLink(identity, existing.id, returnTo),
          email: existing.email,
          returnTo,
        }
      if (!settings.jit) throw forbidden('there is no account here for your email; ask an owner for an invitation')
    }
    return { kind: 'signed-in', signedIn: await signIn(settings, identity, known, meta), returnTo }
  }

  return { signIn, admit }
}
