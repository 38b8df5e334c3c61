/**
 * A real OpenID Connect provider for single sign-on tests (`oidc-provider`), on 127.0.0.1, with a
 * test user store: accounts with an email, whether it is verified, and groups (the `groups`
 * claim, in userinfo as the specification's default claims placement puts it). A person signs in
 * by driving its interaction programmatically (`authorize`, as the account named); accounts can
 * change between sign-ins, or be removed, as a directory's administrator would.
 */
import { createServer } from 'node:http'
import Provider from 'oidc-provider'

export interface SsoAccount {
  email: string
  emailVerified: boolean
  name?: string
  groups: string[]
}

export interface SsoTestProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** The test user store: add, change or delete accounts by their subject. */
  readonly accounts: Map<string, SsoAccount>
  /** The authorization requests' parameters, in order. */
  readonly authorizations: URLSearchParams[]
  /**
   * Plays the browser: follows the authorization URL through the provider's sign-in (as
   * `subject`) until it redirects to a URL under `until`, which it returns.
   */
  authorize(authorizationUrl: string, until: string, subject: string): Promise<URL>
  /** Who signs in when a real browser reaches the provider's sign-in page. */
  signsInNext(subject: string): void
  stop(): Promise<void>
}

export async function startSsoProvider(redirectUri: string): Promise<SsoTestProvider> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  const clientId = 'automaton-sso'
  const clientSecret = 'a-client-secret-of-the-sso-provider'
  const accounts = new Map<string, SsoAccount>()
  const authorizations: URLSearchParams[] = []
  let signingIn = ''
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    scopes: ['openid', 'email', 'profile', 'groups', 'offline_access'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
      Grant: 3600,
      RefreshToken: 86400,
    },
    findAccount: async (_ctx: unknown, id: string) => {
      const account = accounts.get(id)
      if (!account) return undefined
      return {
        accountId: id,
        claims: async () => {
          const now = accounts.get(id) ?? account
          return {
            sub: id,
            email: now.email,
            email_verified: now.emailVerified,
            name: now.name ?? now.email.split('@')[0],
            groups: now.groups,
          }
        },
      }
    },
    // Every authorization gets a refresh token (no offline_access consent dance).
    issueRefreshToken: async () => true,
    // The person has consented already: the grant covers what the client asks for.
    loadExistingGrant: async (ctx: any) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      })
      grant.addOIDCScope('openid email profile groups offline_access')
      await grant.save()
      return grant
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
  })
  const handle = provider.callback()
  server.on('request', (req, res) => {
    if (req.url?.startsWith('/auth?')) authorizations.push(new URL(req.url, issuer).searchParams)
    // The sign-in page: whoever reaches it signs in as the account `authorize` names.
    if (req.url?.startsWith('/interaction/'))
      void provider.interactionFinished(
        req,
        res,
        { login: { accountId: signingIn } },
        { mergeWithLastSubmission: false },
      )
    else handle(req, res)
  })
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    authorizations,
    async authorize(authorizationUrl, until, subject) {
      signingIn = subject
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
    signsInNext(subject) {
      signingIn = subject
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
