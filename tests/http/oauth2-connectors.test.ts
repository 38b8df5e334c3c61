/**
 * OAuth2 connectors against a real OpenID Connect / OAuth2 server (`oidc-provider`): the
 * authorization code flow with PKCE through the start and callback routes, an http-request node
 * calling a protected API with the token, refresh ahead of expiry once across processes, a
 * revoked grant becoming "reconnect needed", and client-credentials tokens minted and re-minted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createSkewedClock, type SkewedClock } from '../helpers/clock.ts'
import {
  ACCESS_TOKEN_TTL_S,
  type TestIdentityProvider,
  type ProtectedResource,
  startIdentityProvider,
  startProtectedResource,
} from '../helpers/identity-provider.ts'
import { defineAction, defineConnector, definePlugin, Secret, Type } from '../../core/plugin/sdk.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear, runAndWait } from '../helpers/workflows.ts'

const PUBLIC_URL = 'https://automaton.example.test'
const CALLBACK = `${PUBLIC_URL}/v1/connectors/oauth2/callback`
/** Past the point where a token is refreshed ahead of its expiry (a minute before it). */
const NEAR_EXPIRY_MS = (ACCESS_TOKEN_TTL_S - 30) * 1000

/** An API that says a token expired in a 200's body: its connector type's `isExpired` recognizes it. */
const bodyApiConnector = defineConnector({
  type: 'bodyapi',
  name: 'Body API',
  description: 'An OAuth2 API that answers an expired token with 200',
  provider: 'Body API Inc.',
  data: Type.Object({ tokenUrl: Type.String(), clientId: Type.String(), clientSecret: Secret(), url: Type.String() }),
  test: (ctx) => ({ ok: typeof (ctx.data as { accessToken?: unknown }).accessToken === 'string' }),
  oauth2: {
    grant: 'client_credentials',
    tokenUrl: (data) => data.tokenUrl,
    scopes: ['api'],
    isExpired: (response) => response.body.includes('token_expired'),
  },
})
const bodyApiCall = defineAction({
  type: 'bodyapi-call',
  name: 'Call',
  description: 'Calls the API with the connector token',
  connector: bodyApiConnector,
  payload: Type.Object({}),
  result: Type.Any(),
  async run(ctx) {
    const { url, accessToken } = ctx.connector as unknown as { url: string; accessToken: string }
    const response = await ctx.http.send({ method: 'GET', url, headers: { authorization: `Bearer ${accessToken}` } })
    return JSON.parse(response.body)
  },
})
const bodyApi = definePlugin({ id: 'bodyapi', connector: bodyApiConnector, actions: [bodyApiCall] })

/** The systems and servers of the suite running now (one store kind at a time). */
let t: TestSystem
let sibling: TestSystem
let provider: TestIdentityProvider
let resource: ProtectedResource
let clock: SkewedClock

const createConnector = async (data: Record<string, unknown>, name = 'provider') => {
  const r = await t.call('POST', '/v1/connectors', {
    body: {
      type: 'oauth2',
      name,
      data: {
        tokenUrl: `${provider.issuer}/token`,
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
        ...data,
      },
    },
  })
  if (r.status !== 200) throw new Error(`create failed: ${JSON.stringify(r.body)}`)
  return r.body.data as { id: string; oauth2: { state: string } }
}
const authorizationCodeConnector = (name?: string) =>
  createConnector(
    { grant: 'authorization_code', authorizationUrl: `${provider.issuer}/auth`, scopes: ['openid', 'api'] },
    name,
  )
const connect = async (id: string) => {
  const start = await t.call('GET', `/v1/connectors/${id}/oauth2/start?redirect=false`)
  expect(start.status).toBe(200)
  const back = await provider.authorize(start.body.data.authorizationUrl, CALLBACK)
  return t.call('GET', `${back.pathname}${back.search}`, { key: null })
}
const callResource = async (connectorId: string) => {
  const w = await createLive(t, {
    name: `call ${connectorId}`,
    definition: linear(
      { call: { type: 'http-request', payload: { url: `${resource.url}/me` }, connector: { id: connectorId } } },
      ['call'],
    ),
  })
  return runAndWait(t, w.id)
}
const statusOf = async (id: string) => (await t.call('GET', `/v1/connectors/${id}`)).body.data.oauth2
const openIn = (system: TestSystem, id: string) =>
  system.system.connectors.resolve(t.orgId, { id }, 'oauth2').then((c) => String(c.data.accessToken))

/** The authorization code grant: the browser's round trip, the node's token, refresh and reconnect. */
function authorizationCodeTests() {
  it('runs the authorization code flow with PKCE and keeps the tokens sealed', async () => {
    const c = await authorizationCodeConnector()
    expect(c.oauth2.state).toBe('pending')
    const redirect = await t.call('GET', `/v1/connectors/${c.id}/oauth2/start`)
    expect(redirect.status).toBe(302)
    const location = new URL(redirect.headers.get('location')!)
    expect(`${location.origin}${location.pathname}`).toBe(`${provider.issuer}/auth`)
    expect(location.searchParams.get('redirect_uri')).toBe(CALLBACK)
    expect(location.searchParams.get('code_challenge_method')).toBe('S256')
    expect(location.searchParams.get('response_type')).toBe('code')

    const callback = await connect(c.id)
    expect(callback.status).toBe(303)
    expect(callback.headers.get('location')).toBe(`/connectors?connected=${c.id}`)
    const status = await statusOf(c.id)
    expect(status).toMatchObject({ state: 'connected', scope: 'openid api', lastError: '' })
    expect(Date.parse(status.expiresAt)).toBeGreaterThan(clock.now())

    const row = await t.system.store.get<Record<string, string>>(
      'SELECT * FROM connector_oauth2_tokens WHERE connector_id = $1',
      [c.id],
    )
    const access = await t.system.secretBox.open(row!.sealed_access_token)
    expect((await provider.introspect(access)).active).toBe(true)
    const shown = JSON.stringify((await t.call('GET', `/v1/connectors/${c.id}`)).body)
    expect(shown).not.toContain(access)
    expect(shown).not.toContain(await t.system.secretBox.open(row!.sealed_refresh_token))
  })

  it('refuses a used, unknown or missing state', async () => {
    const c = await authorizationCodeConnector('once')
    const start = await t.call('GET', `/v1/connectors/${c.id}/oauth2/start?redirect=false`)
    const back = await provider.authorize(start.body.data.authorizationUrl, CALLBACK)
    expect((await t.call('GET', `${back.pathname}${back.search}`, { key: null })).status).toBe(303)
    expect((await t.call('GET', `${back.pathname}${back.search}`, { key: null })).status).toBe(400)
    expect((await t.call('GET', '/v1/connectors/oauth2/callback?state=nope&code=x', { key: null })).status).toBe(400)
    expect((await t.call('GET', '/v1/connectors/oauth2/callback?code=x', { key: null })).status).toBe(400)
  })

  it('marks a connector reconnect_needed when the provider answers an error', async () => {
    const c = await authorizationCodeConnector('denied')
    const start = await t.call('GET', `/v1/connectors/${c.id}/oauth2/start?redirect=false`)
    const state = new URL(start.body.data.authorizationUrl).searchParams.get('state')!
    const r = await t.call(
      'GET',
      `/v1/connectors/oauth2/callback?state=${state}&error=access_denied&error_description=no`,
      { key: null },
    )
    expect(r.status).toBe(400)
    expect(r.body.message).toContain('access_denied')
    expect(await statusOf(c.id)).toMatchObject({ state: 'reconnect_needed', lastError: 'access_denied: no' })
  })

  it('lets an http-request node call a protected API with the current token, renewing it once on a 401', async () => {
    const c = await authorizationCodeConnector('api')
    await connect(c.id)
    const run = await callResource(c.id)
    expect(run.status).toBe('success')
    expect(run.nodes.call.result.body).toMatchObject({ sub: 'user-1', clientId: provider.clientId })

    const refreshes = provider.grants.filter((g) => g === 'refresh_token').length
    resource.refuseNext()
    const retried = await runAndWait(t, run.workflowId)
    expect(retried.status).toBe('success')
    expect(provider.grants.filter((g) => g === 'refresh_token').length).toBe(refreshes + 1)
    const [refused, sent] = resource.tokens.slice(-2)
    expect(sent).not.toBe(refused)
    expect(JSON.stringify(retried)).not.toContain(sent)
  })

  it('refreshes ahead of expiry once, however many processes open the connector at the same time', async () => {
    const c = await authorizationCodeConnector('shared')
    await connect(c.id)
    const before = await openIn(t, c.id)
    const refreshes = provider.grants.filter((g) => g === 'refresh_token').length
    clock.skip(NEAR_EXPIRY_MS)
    const tokens = await Promise.all([openIn(t, c.id), openIn(sibling, c.id), openIn(t, c.id)])
    expect(provider.grants.filter((g) => g === 'refresh_token').length).toBe(refreshes + 1)
    expect(new Set(tokens).size).toBe(1)
    expect(tokens[0]).not.toBe(before)
    expect((await provider.introspect(tokens[0])).active).toBe(true)
    expect(Date.parse((await statusOf(c.id)).expiresAt)).toBeGreaterThan(clock.now() + 60_000)
  })

  it('needs a reconnect once the provider refuses the refresh token, and says so in the node', async () => {
    const c = await authorizationCodeConnector('revoked')
    await connect(c.id)
    const row = await t.system.store.get<Record<string, string>>(
      'SELECT sealed_refresh_token FROM connector_oauth2_tokens WHERE connector_id = $1',
      [c.id],
    )
    await provider.revoke(await t.system.secretBox.open(row!.sealed_refresh_token))
    clock.skip(NEAR_EXPIRY_MS)
    const run = await callResource(c.id)
    expect(run.status).toBe('failure')
    expect(run.nodes.call.error).toContain(`connector "revoked" (${c.id}) needs to be reconnected`)
    expect(await statusOf(c.id)).toMatchObject({ state: 'reconnect_needed' })
    expect((await statusOf(c.id)).lastError).toContain('invalid_grant')
  })
}

/** Client credentials, a type's isExpired hook, and when an authorization cannot start. */
function otherTests() {
  it('mints client-credentials tokens on first use and again when they expire', async () => {
    const c = await createConnector({ grant: 'client_credentials', scopes: ['api'] }, 'machine')
    const minted = () => provider.grants.filter((g) => g === 'client_credentials').length
    const before = minted()
    const run = await callResource(c.id)
    expect(run.status).toBe('success')
    expect(run.nodes.call.result.body).toMatchObject({ clientId: provider.clientId, scope: 'api' })
    expect(minted()).toBe(before + 1)
    const first = await openIn(t, c.id)
    expect(minted()).toBe(before + 1)
    clock.skip(NEAR_EXPIRY_MS)
    const second = await openIn(sibling, c.id)
    expect(minted()).toBe(before + 2)
    expect(second).not.toBe(first)
    expect(await statusOf(c.id)).toMatchObject({ state: 'connected', scope: 'api' })
  })

  it("renews the token and sends again once when the type's isExpired recognizes the answer", async () => {
    const r = await t.call('POST', '/v1/connectors', {
      body: {
        type: 'bodyapi',
        name: 'body api',
        data: {
          tokenUrl: `${provider.issuer}/token`,
          clientId: provider.clientId,
          clientSecret: provider.clientSecret,
          url: `${resource.url}/me`,
        },
      },
    })
    expect(r.status).toBe(200)
    // Its check ran with a token minted for it.
    expect(r.body.data.test).toEqual({ ok: true })
    expect(await statusOf(r.body.data.id)).toMatchObject({ state: 'connected', scope: 'api' })
    const w = await createLive(t, {
      name: 'body api',
      definition: linear({ call: { type: 'bodyapi-call', payload: {}, connector: { id: r.body.data.id } } }, ['call']),
    })
    expect((await runAndWait(t, w.id)).status).toBe('success')
    const minted = provider.grants.filter((g) => g === 'client_credentials').length
    resource.expireNext()
    const run = await runAndWait(t, w.id)
    expect(run.status).toBe('success')
    expect(run.nodes.call.result).toMatchObject({ clientId: provider.clientId, scope: 'api' })
    expect(provider.grants.filter((g) => g === 'client_credentials').length).toBe(minted + 1)
  })

  it('starts an authorization only for authorization-code connectors and with a public URL', async () => {
    const machine = await createConnector({ grant: 'client_credentials' }, 'not-browser')
    const r = await t.call('GET', `/v1/connectors/${machine.id}/oauth2/start`)
    expect(r.status).toBe(409)
    const c = await authorizationCodeConnector('no-public-url')
    const hidden = await t.openSibling({ AUTOMATON_PUBLIC_URL: '' })
    try {
      const refused = await hidden.call('GET', `/v1/connectors/${c.id}/oauth2/start`)
      expect(refused.status).toBe(409)
      expect(refused.body.message).toContain('AUTOMATON_PUBLIC_URL')
    } finally {
      await hidden.stop()
    }
    expect((await t.call('GET', '/v1/connectors/con_missing/oauth2/start')).status).toBe(404)
  })
}

for (const kind of storeKinds()) {
  describe(`OAuth2 connectors (${kind})`, () => {
    beforeAll(async () => {
      provider = await startIdentityProvider(CALLBACK)
      resource = startProtectedResource(provider)
      clock = createSkewedClock()
      const env = { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32', AUTOMATON_PUBLIC_URL: PUBLIC_URL }
      t = await openTestSystem(kind, env, { clock, plugins: [bodyApi] })
      sibling = await t.openSibling({}, { clock, plugins: [bodyApi] })
    })
    afterAll(async () => {
      await sibling?.stop()
      await t?.close()
      await resource?.stop()
      await provider?.stop()
    })
    authorizationCodeTests()
    otherTests()
  })
}
