/**
 * Signing in with an OpenID Connect provider (authorization code with PKCE, by `openid-client`):
 * the start (a redirect to the provider), the provider's redirect back, and the link of an
 * existing person who proves their password once. Sessions afterwards are people's sessions
 * (services/people.ts); oidc-sessions.ts checks them against the provider again.
 *
 * - The state is single use, good for ten minutes, and bound to the browser that started (the
 *   route keeps it in a cookie too): a code cannot be replayed, nor planted in someone else's
 *   browser.
 * - A first sign-in creates the person only when the provider says the email is verified, JIT is
 *   on, and a group gives them an organization here. A person who has an account with that email
 *   is linked only after they give its password: a provider asserting someone's email takes over
 *   nobody.
 * - Groups are applied at every sign-in (oidc-access.ts); sessions are checked again
 *   (oidc-sessions.ts) and ended by the provider's back-channel logout (oidc-logout.ts).
 */
import * as oidc from 'openid-client'
import type { OidcConfig } from '../config/oidc.ts'
import { badRequest, errorMessage } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { Logger } from '../ports/logger.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import { sha256Hex } from '../security/hash.ts'
import { oidcAuthorizations, oidcIdentities } from '../store/oidc.ts'
import { users } from '../store/users.ts'
import type { AuthService } from './auth.ts'
import { createOidcAdmission } from './oidc-admission.ts'
import { identityOf, type OidcIdentity } from './oidc-claims.ts'
import { createOidcLogout, type OidcLogout } from './oidc-logout.ts'
import { createOidcProviders, environmentProvider, type OidcProviders } from './oidc-providers.ts'
import { createOidcSessionChecks, type OidcSessionChecks } from './oidc-sessions.ts'
import type { RequestMeta, SignedIn } from './people-context.ts'
import type { PeopleService } from './people.ts'

/** A sign-in under way, or a link waiting for the password, lasts this long. */
export const OIDC_FLOW_TTL_MS = 10 * 60_000

export type OidcFinished =
  | { kind: 'signed-in'; signedIn: SignedIn; returnTo: string }
  /** An account with this email exists: its password links it (`link`). */
  | { kind: 'link'; token: string; email: string; returnTo: string }

export interface OidcSignIn {
  /** The providers people may sign in with, for the console's buttons. */
  providers(): Promise<Array<{ name: string; displayName: string }>>
  /** The provider's authorization URL, and the state the browser keeps. */
  start(input: { provider: string; returnTo: string; redirectUri: string }): Promise<{ url: string; state: string }>
  /** The provider's redirect back: a session, or a link to confirm with the password. */
  finish(
    input: { query: URLSearchParams; browserState: string | null; redirectUri: string },
    meta: RequestMeta,
  ): Promise<OidcFinished>
  /** Links the provider's identity to the existing person, who gives their password, and signs in. */
  link(input: { token: string; password: string }, meta: RequestMeta): Promise<{ signedIn: SignedIn; returnTo: string }>
}

export interface OidcDeps {
  store: Store
  clock: Clock
  ids: Ids
  logger: Logger
  secretBox: SecretBox
  people: PeopleService
  auth: AuthService
  providers: OidcProviders
  /** The address people reach this server at (AUTOMATON_PUBLIC_URL); null: each request's origin. */
  publicUrl: string | null
}

/** A same-origin path, or 400: an absolute URL, `//host` or `/\host` would leave this site. */
export function checkReturnTo(returnTo: string | undefined): string {
  const path = returnTo ?? '/'
  if (!/^\/(?![/\\])[^\s\\]*$/.test(path)) throw badRequest('returnTo must be a path on this site, such as /workflows')
  return path
}

export function createOidcSignIn(deps: OidcDeps): OidcSignIn {
  const { store, clock, secretBox, people, providers } = deps

  const { signIn, admit } = createOidcAdmission(deps)

  /** The sign-in the state names, taken (so used once); 400 when unknown, used, expired or another browser's. */
  async function takeFlow(state: string | null, browserState: string | null) {
    if (!state || state !== browserState)
      throw badRequest('this sign-in was not started in this browser, or has been used; sign in again')
    const hash = await sha256Hex(state)
    const row = await store.write((tx) => oidcAuthorizations.take(tx, hash))
    if (!row || row.user_id !== null || row.created_at + OIDC_FLOW_TTL_MS <= clock.now())
      throw badRequest('this sign-in is unknown, used or expired; sign in again')
    return row
  }

  return {
    async providers() {
      return (await providers.list()).map((p) => ({ name: p.name, displayName: p.displayName }))
    },

    async start({ provider, returnTo, redirectUri }) {
      const path = checkReturnTo(returnTo)
      const { settings, config } = await providers.open(provider)
      const verifier = oidc.randomPKCECodeVerifier()
      const state = oidc.randomState()
      const nonce = oidc.randomNonce()
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: [...new Set(['openid', 'email', 'profile', ...settings.scopes])].join(' '),
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      })
      const sealed = await secretBox.seal(JSON.stringify({ verifier, nonce }))
      const stateHash = await sha256Hex(state)
      await store.write(async (tx) => {
        await oidcAuthorizations.prune(tx, clock.now() - OIDC_FLOW_TTL_MS)
        await oidcAuthorizations.insert(tx, {
          state_hash: stateHash,
          provider: settings.name,
          sealed_verifier: sealed,
          return_to: path,
          subject: null,
          user_id: null,
          created_at: clock.now(),
        })
      })
      return { url: url.href, state }
    },

    async finish({ query, browserState, redirectUri }, meta) {
      const state = query.get('state')
      const flow = await takeFlow(state, browserState)
      const refusal = query.get('error')
      if (refusal) {
        const description = query.get('error_description')
        throw badRequest(`the identity provider answered ${refusal}${description ? `: ${description}` : ''}`)
      }
      const { settings, config } = await providers.open(flow.provider)
      const { verifier, nonce } = JSON.parse(await secretBox.open(flow.sealed_verifier))
      const callbackUrl = new URL(redirectUri)
      for (const [k, v] of query) callbackUrl.searchParams.append(k, v)
      let identity: OidcIdentity
      try {
        const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: verifier,
          expectedState: state!,
          expectedNonce: nonce,
          idTokenExpected: true,
        })
        identity = await identityOf(settings, config, tokens)
      } catch (error) {
        deps.logger.warn('an OpenID Connect sign-in failed', { provider: settings.name, error: errorMessage(error) })
        throw badRequest(`the identity provider did not complete the sign-in: ${errorMessage(error)}`)
      }
      return admit(settings, identity, flow.return_to, meta)
    },

    async link({ token, password }, meta) {
      const hash = await sha256Hex(token)
      const pending = await oidcAuthorizations.byHash(store, hash)
      const gone = () => badRequest('this link is unknown, used or expired; sign in with the identity provider again')
      if (!pending?.user_id || pending.created_at + OIDC_FLOW_TTL_MS <= clock.now()) throw gone()
      const person = await users.byId(store, pending.user_id)
      if (!person) throw gone()
      await people.provePassword({ email: person.email, password }, meta)
      if (!(await store.write((tx) => oidcAuthorizations.take(tx, hash)))) throw gone()
      const identity = JSON.parse(await secretBox.open(pending.sealed_verifier)) as OidcIdentity
      const { settings } = await providers.open(identity.provider)
      await store.write((tx) => oidcIdentities.link(tx, identity.provider, identity.subject, person.id, clock.now()))
      return { signedIn: await signIn(settings, identity, person.id, meta), returnTo: pending.return_to }
    },
  }
}

/** Single sign-on as the HTTP routes and the CLI use it. */
export type OidcService = OidcSignIn &
  OidcSessionChecks &
  OidcLogout & {
    /** The providers, to add or remove one (the CLI). */
    readonly registry: OidcProviders
    /** Where the provider's redirect comes back to, before its path; null: each request's origin. */
    readonly publicUrl: string | null
  }

export function createOidcService(deps: OidcDeps): OidcService {
  return {
    ...createOidcSignIn(deps),
    ...createOidcSessionChecks(deps),
    ...createOidcLogout(deps),
    registry: deps.providers,
    publicUrl: deps.publicUrl,
  }
}

/** The service over the environment's provider and the CLI's, as the configuration says. */
export function openOidcService(
  deps: Omit<OidcDeps, 'providers' | 'publicUrl'>,
  config: OidcConfig & { allowPrivateTargets: readonly string[]; publicUrl: string | null },
): OidcService {
  const providers = createOidcProviders({
    store: deps.store,
    clock: deps.clock,
    secretBox: deps.secretBox,
    environment: environmentProvider(config),
    allowList: config.allowPrivateTargets,
  })
  return createOidcService({ ...deps, providers, publicUrl: config.publicUrl })
}
