/**
 * OpenID Connect Back-Channel Logout 1.0: the provider POSTs a `logout_token` (a JWT it signed)
 * when a person's session with it ends; the sessions here that it began for that subject (or
 * for that provider session, `sid`) end too. The token is verified by `jose` (the JOSE library
 * `openid-client` is built on) against the keys the provider publishes (`jwks_uri` from
 * discovery): issuer, audience (our client id), its issue time, the logout event, a subject or
 * a session id, and no nonce, as the specification's section 2.6 says.
 */
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose'
import { badRequest, errorMessage } from '../errors.ts'
import { sessions } from '../store/users.ts'
import { oidcSessions } from '../store/oidc.ts'
import { notePersonAct } from './audit-context.ts'
import type { OidcDeps } from './oidc.ts'

export const LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout'
/** A logout token issued longer ago than this is refused (a replay). */
const LOGOUT_TOKEN_MAX_AGE_S = 10 * 60
/** Clocks of the provider and this server may disagree by this much. */
const CLOCK_TOLERANCE_S = 60

export interface OidcLogout {
  /** Verifies the provider's logout token and ends the sessions it names; 400 when it does not hold. */
  backChannelLogout(provider: string, logoutToken: string): Promise<{ ended: number }>
}

/** The subject and provider session a verified logout token names; throws when it breaks the rules. */
export function logoutTarget(claims: JWTPayload): { subject: string | null; sid: string | null } {
  const events = claims.events as Record<string, unknown> | undefined
  if (!events || typeof events !== 'object' || !(LOGOUT_EVENT in events))
    throw new Error(`the token has no ${LOGOUT_EVENT} event`)
  if ('nonce' in claims) throw new Error('a logout token carries no nonce')
  const subject = typeof claims.sub === 'string' && claims.sub ? claims.sub : null
  const sid = typeof claims.sid === 'string' && claims.sid ? claims.sid : null
  if (!subject && !sid) throw new Error('the token names neither a subject (sub) nor a session (sid)')
  return { subject, sid }
}

export function createOidcLogout(deps: OidcDeps): OidcLogout {
  const { store, clock, providers } = deps
  const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>()

  function keysOf(jwksUri: string) {
    let keys = keySets.get(jwksUri)
    if (!keys) {
      keys = createRemoteJWKSet(new URL(jwksUri))
      keySets.set(jwksUri, keys)
    }
    return keys
  }

  return {
    async backChannelLogout(provider, logoutToken) {
      const { settings, config } = await providers.open(provider)
      const metadata = config.serverMetadata()
      if (!metadata.jwks_uri) throw badRequest(`the provider ${settings.name} publishes no keys (jwks_uri)`)
      let target: { subject: string | null; sid: string | null }
      try {
        const { payload } = await jwtVerify(logoutToken, keysOf(metadata.jwks_uri), {
          issuer: metadata.issuer,
          audience: settings.clientId,
          requiredClaims: ['iat', 'jti'],
          maxTokenAge: LOGOUT_TOKEN_MAX_AGE_S,
          clockTolerance: CLOCK_TOLERANCE_S,
          currentDate: new Date(clock.now()),
        })
        target = logoutTarget(payload)
      } catch (error) {
        deps.logger.warn('a back-channel logout token was refused', {
          provider: settings.name,
          error: errorMessage(error),
        })
        throw badRequest(`the logout token does not hold: ${errorMessage(error)}`)
      }
      const named = await oidcSessions.named(store, settings.name, target, clock.now())
      // The person's sign-out, recorded in each of their organizations (one subject is one person).
      const people = new Set(named.map((s) => s.user_id))
      if (people.size === 1) notePersonAct([...people][0], 'auth.signOut')
      if (named.length > 0)
        await store.write(async (tx) => {
          for (const session of named) await sessions.revoke(tx, session.session_id, clock.now())
        })
      deps.logger.info('the identity provider ended sessions (back-channel logout)', {
        provider: settings.name,
        sessions: named.length,
      })
      return { ended: named.length }
    },
  }
}
