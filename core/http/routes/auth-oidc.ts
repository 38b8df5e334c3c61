/**
 * Single sign-on with OpenID Connect: the providers (for the console's buttons), the start of a
 * sign-in (a redirect to the provider), the provider's redirect back (a session cookie and a
 * redirect to `returnTo`), the link of an existing account by its password, and the operator's
 * one-time sign-in link, and the provider's back-channel logout. None takes an API key: the
 * state, the link token, the sign-in link or the provider's signed logout token is the credential.
 */
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { unsupportedMediaType } from '../../errors.ts'
import type { OidcService } from '../../services/oidc.ts'
import { DEFAULT_PROVIDER } from '../../services/oidc-providers.ts'
import type { SignedIn } from '../../services/people.ts'
import { PASSWORD_MAX_LENGTH } from '../../ports/passwords.ts'
import { doc } from '../docs.ts'
import { cookieOf, SESSION_COOKIE } from '../middleware/auth.ts'
import { clientAddressOf, clientUrlOf } from '../request-state.ts'
import { t } from '../schemas.ts'

const tags = ['people']
export const OIDC_CALLBACK_PATH = '/v1/auth/oidc/callback'
const STATE_COOKIE = 'automaton_oidc_state'
const LINK_COOKIE = 'automaton_oidc_link'
const FLOW_SECONDS = 600

const metaOf = (request: Request) => ({ ip: clientAddressOf(request), userAgent: request.headers.get('user-agent') })

function cookie(request: Request, name: string, value: string, maxAge: number, path = '/v1/auth/oidc'): string {
  const secure = clientUrlOf(request).startsWith('https:') ? '; Secure' : ''
  return `${name}=${value}; HttpOnly; SameSite=Lax; Path=${path}; Max-Age=${maxAge}${secure}`
}

function redirect(location: string, cookies: string[], status = 303): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store' })
  for (const c of cookies) headers.append('set-cookie', c)
  return new Response(null, { status, headers })
}

export function oidcRoutes(oidc: OidcService, sessionMaxAgeMs: number) {
  const redirectUriOf = (request: Request) =>
    `${oidc.publicUrl ?? new URL(clientUrlOf(request)).origin}${OIDC_CALLBACK_PATH}`
  const sessionCookie = (request: Request, signedIn: SignedIn) =>
    cookie(request, SESSION_COOKIE, signedIn.token, Math.floor(sessionMaxAgeMs / 1000), '/')

  return new Elysia({ name: 'routes.auth-oidc', prefix: '/v1/auth' })
    .get('/oidc/providers', async () => ({ items: await oidc.providers() }), {
      detail: doc({
        summary: 'The identity providers people may sign in with',
        description: 'For the sign-in page: `name` goes in `provider=` of the login URL, `displayName` on the button.',
        tags,
        response: T.Object({ items: T.Array(T.Object({ name: T.String(), displayName: T.String() })) }),
      }),
    })
    .get(
      '/oidc/login',
      async ({ query, request }) => {
        const { url, state } = await oidc.start({
          provider: query.provider ?? DEFAULT_PROVIDER,
          returnTo: query.returnTo ?? '/',
          redirectUri: redirectUriOf(request),
        })
        return redirect(url, [cookie(request, STATE_COOKIE, state, FLOW_SECONDS)], 302)
      },
      {
        query: t.Object({
          returnTo: t.Optional(t.String({ maxLength: 2048, description: 'A path on this site to land on' })),
          provider: t.Optional(t.String({ maxLength: 64, description: "`default`: the environment's provider" })),
        }),
        detail: doc({
          summary: 'Sign in with an identity provider (a redirect to it)',
          description: `Redirects (302) to the provider (authorization code with PKCE); it sends the person back to ${OIDC_CALLBACK_PATH} under AUTOMATON_PUBLIC_URL (or this request's origin), the redirect URI to register with it. The sign-in must finish within 10 minutes, in the same browser. 400 when returnTo is not a path on this site; 404 for an unknown provider; 503 when the provider's discovery document cannot be read.`,
          tags,
          errors: [400, 404, 503],
        }),
      },
    )
    .get(
      '/oidc/callback',
      async ({ request }) => {
        const finished = await oidc.finish(
          {
            query: new URL(request.url).searchParams,
            browserState: cookieOf(request, STATE_COOKIE),
            redirectUri: redirectUriOf(request),
          },
          metaOf(request),
        )
        const cleared = cookie(request, STATE_COOKIE, '', 0)
        if (finished.kind === 'signed-in')
          return redirect(finished.returnTo, [cleared, sessionCookie(request, finished.signedIn)])
        const to = `/signin?ssoLink=${encodeURIComponent(finished.email)}&next=${encodeURIComponent(finished.returnTo)}`
        return redirect(to, [cleared, cookie(request, LINK_COOKIE, finished.token, FLOW_SECONDS)])
      },
      {
        detail: doc({
          summary: "The identity provider's redirect back (the redirect URI)",
          description:
            "Sets the session cookie and redirects (303) to returnTo. When an account with the provider's email exists and is not linked yet, redirects to the console's sign-in page instead, where its password links it (POST /v1/auth/oidc/link). Every failure answers the error body (JSON), never a bare page: 400 for an unknown, used, expired or other browser's state, a provider that answered an error (`error=access_denied`), or a sign-in the provider did not complete; 403 when the email is not verified, JIT creation is off, or no group gives access to an organization; 503 when the provider cannot be reached.",
          tags,
          errors: [400, 403, 503],
        }),
      },
    )
    .post(
      '/oidc/backchannel-logout',
      async ({ body, query, set }) => {
        set.headers['cache-control'] = 'no-store'
        return oidc.backChannelLogout(query.provider ?? DEFAULT_PROVIDER, body.logout_token)
      },
      {
        query: t.Object({
          provider: t.Optional(t.String({ maxLength: 64, description: "`default`: the environment's provider" })),
        }),
        body: t.Object({ logout_token: t.String({ minLength: 1, maxLength: 16_384 }) }),
        detail: doc({
          summary: "The identity provider's back-channel logout (OpenID Connect Back-Channel Logout 1.0)",
          description:
            "Register this URL (with `?provider=<name>` for a provider added with the CLI) as the client's back-channel logout URI. The provider POSTs `logout_token` (form-encoded), a JWT it signed with a key of its `jwks_uri`, naming a subject (`sub`) or a provider session (`sid`); the sessions it began here for them end. 200 with the number of sessions ended; 400 when the token does not verify (signature, issuer, audience, age, the logout event, no nonce); 404 for an unknown provider.",
          tags,
          response: T.Object({ ended: T.Integer() }),
          errors: [400, 404],
        }),
      },
    )
    .post(
      '/oidc/link',
      async ({ body, request, set }) => {
        const token = body.token ?? cookieOf(request, LINK_COOKIE) ?? ''
        const { signedIn } = await oidc.link({ token, password: body.password }, metaOf(request))
        set.headers['set-cookie'] = sessionCookie(request, signedIn)
        return signedIn
      },
      {
        transform: ({ request }) => {
          const type = request.headers.get('content-type')?.split(';')[0].trim().toLowerCase()
          if (type !== 'application/json') throw unsupportedMediaType('application/json')
        },
        body: t.Object({
          password: t.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
          token: t.Optional(t.String({ maxLength: 200 })),
        }),
        detail: doc({
          summary: "Link the identity provider's sign-in to your account by giving its password once",
          description:
            'The link token is the cookie the callback set (or `token`). A wrong password is 401 and counts as a failed sign-in. JSON only.',
          tags,
          errors: [400, 401, 415, 429],
        }),
      },
    )
    .get(
      '/sign-in-link',
      async ({ query, request }) => {
        const signedIn = await oidc.useSignInLink(query.token, metaOf(request))
        return redirect('/', [sessionCookie(request, signedIn)])
      },
      {
        query: t.Object({ token: t.String({ maxLength: 200 }) }),
        detail: doc({
          summary: "Sign in with the operator's one-time link (`automaton users sign-in-link`)",
          description:
            'The break-glass of organizations that require single sign-on: sets the session cookie and redirects (303) to the console. Good once, for 15 minutes; 401 otherwise.',
          tags,
          errors: [401],
        }),
      },
    )
}
