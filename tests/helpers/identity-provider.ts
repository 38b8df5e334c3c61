/**
 * A real OpenID Connect / OAuth2 server for tests (`oidc-provider`), on 127.0.0.1, serving both
 * the OAuth2 connector tests and the single sign-on tests: one confidential client (authorization
 * code with a refresh token, client credentials), introspection and revocation, back-channel
 * logout, and a test user store (accounts with an email, whether it is verified, and groups, in
 * userinfo as the specification's default claims placement puts it). A person signs in by
 * driving its interaction programmatically (`authorize`, as the account named); accounts can
 * change between sign-ins, or be removed, as a directory's administrator would. An account not in
 * the store signs in with its subject alone (the OAuth2 tests' `user-1`). Also a protected
 * resource that accepts only tokens the provider's introspection says are active.
 */
import { createServer } from 'node:http'
import Provider from 'oidc-provider'

export interface TestAccount {
  email: string
  emailVerified: boolean
  name?: string
  groups: string[]
}

export interface TestIdentityProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** The test user store: add, change or delete accounts by their subject. */
  readonly accounts: Map<string, TestAccount>
  /** The authorization requests' parameters, in order. */
  readonly authorizations: URLSearchParams[]
  /** The grant types of the token requests that succeeded, in order. */
  readonly grants: string[]
  /**
   * Plays the browser: follows the authorization URL through the provider's sign-in (as
   * `subject`, `user-1` unless named) until it redirects to a URL under `until`, which it returns.
   */
  authorize(authorizationUrl: string, until: string, subject?: string): Promise<URL>
  /** Who signs in when a real browser reaches the provider's sign-in page. */
  signsInNext(subject: string): void
  /** The provider session (`sid`) of the subject's last sign-in. */
  sessionOf(subject: string): string | undefined
  /**
   * A back-channel logout token as the provider issues it when a session ends there (signed
   * with its key, naming the subject and, when given, the provider session).
   */
  logoutToken(subject: string, sid?: string): Promise<string>
  /** An ID token for the subject, signed by the provider (not a logout token). */
  idToken(subject: string): Promise<string>
  /** Revokes a token (RFC 7009), as a person removing the app's access would. */
  revoke(token: string): Promise<void>
  /** Whether the provider holds the token as active, and whose it is. */
  introspect(token: string): Promise<{ active: boolean; sub?: string; client_id?: string; scope?: string }>
  stop(): Promise<void>
}

/** Access tokens live this long (seconds): a skip of the test clock past a minute before it makes a refresh due. */
export const ACCESS_TOKEN_TTL_S = 120

const SCOPES = 'openid email profile groups offline_access api'
const LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout'

function configuration(
  clientId: string,
  clientSecret: string,
  redirectUri: string,
  accounts: Map<string, TestAccount>,
) {
  return {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
        response_types: ['code'],
        scope: SCOPES,
        backchannel_logout_uri: new URL('/v1/auth/oidc/backchannel-logout', redirectUri).href,
        backchannel_logout_session_required: true,
      },
    ],
    scopes: SCOPES.split(' '),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    features: {
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      backchannelLogout: { enabled: true },
      devInteractions: { enabled: false },
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      ClientCredentials: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
      Grant: 3600,
      RefreshToken: 86400,
    },
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => {
        const account = accounts.get(id)
        if (!account) return { sub: id }
        return {
          sub: id,
          email: account.email,
          email_verified: account.emailVerified,
          name: account.name ?? account.email.split('@')[0],
          groups: account.groups,
        }
      },
    }),
    // Every authorization gets a refresh token (no offline_access consent dance).
    issueRefreshToken: async () => true,
    // The person has consented already: the grant covers what the client asks for.
    loadExistingGrant: async (ctx: any) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      })
      grant.addOIDCScope(SCOPES)
      await grant.save()
      return grant
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
  }
}

/** Follows redirects by hand, keeping the provider's cookies, until one leads under `until`. */
async function followUntil(start: string, until: string): Promise<URL> {
  const cookies = new Map<string, string>()
  let url = new URL(start)
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    })
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';')
      const at = pair.indexOf('=')
      cookies.set(pair.slice(0, at), pair.slice(at + 1))
    }
    const location = response.headers.get('location')
    if (!location) throw new Error(`the provider answered ${response.status}: ${(await response.text()).slice(0, 500)}`)
    url = new URL(location, url)
    if (url.toString().startsWith(until)) return url
  }
  throw new Error('the authorization did not come back')
}

export async function startIdentityProvider(redirectUri: string): Promise<TestIdentityProvider> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  const clientId = 'automaton-test'
  const clientSecret = 'a-client-secret-of-the-test-provider'
  const accounts = new Map<string, TestAccount>()
  const authorizations: URLSearchParams[] = []
  const grants: string[] = []
  const sessions = new Map<string, string>()
  let signingIn = 'user-1'
  const provider = new Provider(issuer, configuration(clientId, clientSecret, redirectUri, accounts))
  provider.on('grant.success', (ctx: any) => grants.push(ctx.oidc.params.grant_type))
  provider.on('authorization.success', (ctx: any) => {
    const session = ctx.oidc.session
    if (session?.accountId) sessions.set(session.accountId, session.sidFor(clientId))
  })
  const handle = provider.callback()
  server.on('request', (req, res) => {
    if (req.url?.startsWith('/auth?')) authorizations.push(new URL(req.url, issuer).searchParams)
    // The sign-in page: whoever reaches it signs in as the account `authorize` (or `signsInNext`) names.
    if (req.url?.startsWith('/interaction/'))
      void provider.interactionFinished(
        req,
        res,
        { login: { accountId: signingIn } },
        { mergeWithLastSubmission: false },
      )
    else handle(req, res)
  })
  const basic = `Basic ${btoa(`${clientId}:${clientSecret}`)}`
  const form = (path: string, body: Record<string, string>) =>
    fetch(`${issuer}${path}`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body),
    })
  const tokenFor = async (subject: string) =>
    new provider.IdToken({ sub: subject }, { client: await provider.Client.find(clientId), ctx: undefined })

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    authorizations,
    grants,
    authorize(authorizationUrl, until, subject = 'user-1') {
      signingIn = subject
      return followUntil(authorizationUrl, until)
    },
    signsInNext(subject) {
      signingIn = subject
    },
    sessionOf: (subject) => sessions.get(subject),
    async logoutToken(subject, sid) {
      // What the provider's Client#backchannelLogout sends, without the POST.
      const token = await tokenFor(subject)
      token.mask = { sub: null }
      token.set('events', { [LOGOUT_EVENT]: {} })
      token.set('jti', crypto.randomUUID())
      if (sid) token.set('sid', sid)
      return token.issue({ use: 'logout' })
    },
    async idToken(subject) {
      return (await tokenFor(subject)).issue({ use: 'idtoken' })
    },
    async revoke(token) {
      const response = await form('/token/revocation', { token })
      if (response.status !== 200) throw new Error(`revocation answered ${response.status}`)
    },
    async introspect(token) {
      return (await (await form('/token/introspection', { token })).json()) as never
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

export interface ProtectedResource {
  url: string
  /** The tokens requests carried, in order. */
  readonly tokens: string[]
  /** Refuses the next request with a 401, whatever its token (a token the API revoked early). */
  refuseNext(): void
  /** Answers the next request 200 with `{ error: 'token_expired' }`, as some APIs say a token expired. */
  expireNext(): void
  stop(): Promise<void>
}

/** An API that answers `{ sub, clientId, scope }` to a request with an active token, 401 otherwise. */
export function startProtectedResource(provider: TestIdentityProvider): ProtectedResource {
  const tokens: string[] = []
  let refuse = false
  let expire = false
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1]
      if (token) tokens.push(token)
      if (expire) {
        expire = false
        return Response.json({ error: 'token_expired' })
      }
      if (refuse || !token) {
        refuse = false
        return Response.json({ error: 'invalid_token' }, { status: 401 })
      }
      const info = await provider.introspect(token)
      if (!info.active) return Response.json({ error: 'invalid_token' }, { status: 401 })
      return Response.json({ sub: info.sub ?? null, clientId: info.client_id, scope: info.scope })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    tokens,
    refuseNext() {
      refuse = true
    },
    expireNext() {
      expire = true
    },
    stop: () => server.stop(true),
  }
}
