/**
 * A real OpenID Connect / OAuth2 server for tests (`oidc-provider`), on 127.0.0.1, with one
 * confidential client (authorization code, refresh token, client credentials), introspection and
 * revocation; a person signs in by driving its interaction programmatically (`authorize`). Also a
 * protected resource that accepts only tokens the provider's introspection says are active.
 */
import { createServer } from 'node:http'
import Provider from 'oidc-provider'

export interface OAuth2TestProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** The grant types of the token requests that succeeded, in order. */
  readonly grants: string[]
  /**
   * Plays the browser: follows the authorization URL through the provider's sign-in (as `user-1`)
   * until it redirects to a URL under `until`, which it returns.
   */
  authorize(authorizationUrl: string, until: string): Promise<URL>
  /** Revokes a token (RFC 7009), as a person removing the app's access would. */
  revoke(token: string): Promise<void>
  /** Whether the provider holds the token as active, and whose it is. */
  introspect(token: string): Promise<{ active: boolean; sub?: string; client_id?: string; scope?: string }>
  stop(): Promise<void>
}

/** Access tokens live this long (seconds): a skip of the test clock past a minute before it makes a refresh due. */
export const ACCESS_TOKEN_TTL_S = 120

export async function startOAuth2Provider(redirectUri: string): Promise<OAuth2TestProvider> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  const clientId = 'automaton-test'
  const clientSecret = 'a-client-secret-of-the-test-provider'
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
        response_types: ['code'],
        scope: 'openid offline_access api',
      },
    ],
    scopes: ['openid', 'offline_access', 'api'],
    features: {
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
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
      RefreshToken: 3600,
    },
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    // Every authorization of this client gets a refresh token (no offline_access consent dance).
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    // The person has consented already: the grant covers what the client asks for.
    loadExistingGrant: async (ctx: any) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      })
      grant.addOIDCScope('openid offline_access api')
      await grant.save()
      return grant
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
  })
  const grants: string[] = []
  provider.on('grant.success', (ctx: any) => grants.push(ctx.oidc.params.grant_type))
  const handle = provider.callback()
  server.on('request', (req, res) => {
    // The sign-in page: whoever reaches it signs in as user-1.
    if (req.url?.startsWith('/interaction/'))
      void provider.interactionFinished(
        req,
        res,
        { login: { accountId: 'user-1' } },
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
  return {
    issuer,
    clientId,
    clientSecret,
    grants,
    async authorize(authorizationUrl, until) {
      const cookies = new Map<string, string>()
      let url = new URL(authorizationUrl)
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
        if (!location)
          throw new Error(`the provider answered ${response.status}: ${(await response.text()).slice(0, 500)}`)
        url = new URL(location, url)
        if (url.toString().startsWith(until)) return url
      }
      throw new Error('the authorization did not come back')
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
export function startProtectedResource(provider: OAuth2TestProvider): ProtectedResource {
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
