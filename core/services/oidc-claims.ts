/**
 * What a provider says about a person after a grant: the ID token's claims, with the userinfo
 * answer over them (many providers put email and groups only there), as one identity.
 */
import * as oidc from 'openid-client'
import type { OidcProviderSettings } from '../domain/oidc.ts'
import { groupsOf } from './oidc-access.ts'

/** A person as a provider asserts them. */
export interface OidcIdentity {
  provider: string
  subject: string
  email: string | null
  emailVerified: boolean
  name: string
  groups: string[]
  refreshToken: string | null
  /** The provider's session id (`sid`), when its ID token carries one: a back-channel logout may name it. */
  sid: string | null
}

type Tokens = oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers

/** The identity a grant's tokens carry; `subject`, when known, must match. */
export async function identityOf(
  settings: OidcProviderSettings,
  config: oidc.Configuration,
  tokens: Tokens,
  subject?: string,
): Promise<OidcIdentity> {
  const idClaims = (tokens.claims() ?? {}) as Record<string, unknown>
  const sub = (idClaims.sub as string | undefined) ?? subject
  if (!sub) throw new Error('the provider answered no ID token and no subject is known')
  if (subject && sub !== subject) throw new Error('the provider answered for another subject')
  const info = config.serverMetadata().userinfo_endpoint
    ? ((await oidc.fetchUserInfo(config, tokens.access_token, sub)) as Record<string, unknown>)
    : {}
  const claims = { ...idClaims, ...info }
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : null
  return {
    provider: settings.name,
    subject: sub,
    email,
    emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    name: typeof claims.name === 'string' ? claims.name : (email?.split('@')[0] ?? ''),
    groups: groupsOf(claims, settings.groupsClaim),
    refreshToken: tokens.refresh_token ?? null,
    sid: typeof idClaims.sid === 'string' ? idClaims.sid : null,
  }
}
