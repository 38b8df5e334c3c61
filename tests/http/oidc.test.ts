/**
 * Single sign-on with OpenID Connect against a real provider (oidc-provider, with a test user
 * store): the login redirect (PKCE), a first sign-in that creates the person in the organizations
 * and roles their groups give, a group removed taking access away at the next sign-in and at the
 * next session refresh, no takeover of an existing person without their password, organizations
 * that require single sign-on refusing passwords (and the operator's one-time link), same-origin
 * `returnTo` only, a state good once and only in the browser that started, the provider's
 * back-channel logout, and the hourly check of sessions nobody uses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { generateKeyPair, SignJWT } from 'jose'
import { createSkewedClock } from '../helpers/clock.ts'
import { addMember, asSession, PASSWORD, signIn } from '../helpers/people.ts'
import { storeKinds } from '../helpers/services.ts'
import { type TestIdentityProvider, startIdentityProvider } from '../helpers/identity-provider.ts'
import { CALLBACK, openSignOnSystem } from '../helpers/sign-on.ts'
import type { TestSystem } from '../helpers/system.ts'

const cookieNamed = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith(`${name}=`))
    ?.slice(name.length + 1) ?? null

for (const kind of storeKinds()) {
  describe(`single sign-on (${kind})`, () => {
    let t: TestSystem
    let provider: TestIdentityProvider
    let beta: { orgId: string; key: string }
    // The real time (the provider's tokens carry it), moved forward on demand.
    const clock = createSkewedClock()

    const get = (path: string, cookie = '') =>
      t.system.app.handle(new Request(`http://localhost${path}`, { headers: cookie ? { cookie } : {} }))

    /** Starts at the login URL, signs in at the provider as `subject`, and answers the callback's response. */
    async function ssoSignIn(subject: string, returnTo = '/workflows') {
      const login = await get(`/v1/auth/oidc/login?returnTo=${encodeURIComponent(returnTo)}`)
      expect(login.status).toBe(302)
      const state = cookieNamed(login, 'automaton_oidc_state')!
      const back = await provider.authorize(login.headers.get('location')!, CALLBACK, subject)
      const callbackPath = `${back.pathname}${back.search}`
      const response = await get(callbackPath, `automaton_oidc_state=${state}`)
      return { response, callbackPath, state, session: cookieNamed(response, 'automaton_session') }
    }

    const membershipsOf = async (token: string) =>
      (await asSession(t, token)('GET', '/v1/auth/session')).body.data?.user.memberships.map(
        (m: { organizationName: string; role: string }) => `${m.organizationName}:${m.role}`,
      )

    beforeAll(async () => {
      provider = await startIdentityProvider(CALLBACK)
      t = await openSignOnSystem(kind, provider, clock, {
        AUTOMATON_OIDC_NAME: 'Corp',
        AUTOMATON_OIDC_GROUP_ROLES: 'automation-ops=acme:developer,auditors=acme:viewer,platform=beta:owner',
      })
      beta = await t.newOrganization('beta')
    })
    afterAll(async () => {
      await t?.close()
      await provider?.stop()
    })

    it('lists the provider and redirects to it with PKCE, a state and a nonce', async () => {
      expect((await t.call('GET', '/v1/auth/oidc/providers', { key: null })).body.data.items).toEqual([
        { name: 'default', displayName: 'Corp' },
      ])
      const login = await get('/v1/auth/oidc/login?returnTo=/runs')
      expect(login.status).toBe(302)
      const url = new URL(login.headers.get('location')!)
      expect(url.origin).toBe(provider.issuer)
      expect(url.searchParams.get('code_challenge_method')).toBe('S256')
      expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/)
      expect(url.searchParams.get('redirect_uri')).toBe(CALLBACK)
      expect(url.searchParams.get('scope')!.split(' ').sort()).toEqual(['email', 'groups', 'openid', 'profile'])
      expect(url.searchParams.get('nonce')).toBeTruthy()
      expect(cookieNamed(login, 'automaton_oidc_state')).toBe(url.searchParams.get('state'))
    })

    it('creates the person at their first sign-in, in the organizations and roles their groups give', async () => {
      provider.accounts.set('ann', {
        email: 'Ann@Corp.test',
        emailVerified: true,
        groups: ['automation-ops', 'auditors', 'platform'],
      })
      const { response, session } = await ssoSignIn('ann', '/workflows?tab=live')
      expect(response.status).toBe(303)
      expect(response.headers.get('location')).toBe('/workflows?tab=live')
      expect(session).toMatch(/^sess_/)
      // The highest role of her groups in acme (developer over viewer), and owner of beta.
      expect((await membershipsOf(session!)).sort()).toEqual(['acme:developer', 'beta:owner'])
      const inAcme = await asSession(t, session!, t.orgId)('GET', '/v1/workflows')
      expect(inAcme.status).toBe(200)
    })

    it('takes access away at the next sign-in when a group is removed, and ends the session at its next refresh', async () => {
      provider.accounts.set('cid', {
        email: 'cid@corp.test',
        emailVerified: true,
        groups: ['automation-ops', 'platform'],
      })
      const first = await ssoSignIn('cid')
      expect((await membershipsOf(first.session!)).sort()).toEqual(['acme:developer', 'beta:owner'])

      provider.accounts.set('cid', { email: 'cid@corp.test', emailVerified: true, groups: ['platform'] })
      const second = await ssoSignIn('cid')
      expect(second.response.status).toBe(303)
      expect(await membershipsOf(second.session!)).toEqual(['beta:owner'])
      expect((await asSession(t, second.session!, t.orgId)('GET', '/v1/workflows')).status).toBe(403)

      // Out of every group: the session refresh asks the provider again and the session ends.
      provider.accounts.set('cid', { email: 'cid@corp.test', emailVerified: true, groups: [] })
      expect((await asSession(t, second.session!)('GET', '/v1/auth/session')).status).toBe(401)
      expect((await asSession(t, first.session!, beta.orgId)('GET', '/v1/workflows')).status).toBe(401)
      const refused = await ssoSignIn('cid')
      expect(refused.response.status).toBe(403)
      expect(refused.session).toBeNull()
    })

    const backChannelLogout = (logoutToken: string, provider?: string) =>
      t.system.app.handle(
        new Request(`http://localhost/v1/auth/oidc/backchannel-logout${provider ? `?provider=${provider}` : ''}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ logout_token: logoutToken }),
        }),
      )

    it("ends the sessions the provider's back-channel logout names: one provider session, or all of a subject's", async () => {
      provider.accounts.set('ivy', { email: 'ivy@corp.test', emailVerified: true, groups: ['automation-ops'] })
      const laptop = await ssoSignIn('ivy')
      const laptopSid = provider.sessionOf('ivy')!
      const phone = await ssoSignIn('ivy')
      const phoneSid = provider.sessionOf('ivy')!
      expect(phoneSid).not.toBe(laptopSid)
      const inAcme = (session: string) => asSession(t, session, t.orgId)('GET', '/v1/workflows')

      // The provider ended the phone's session: that one ends here, the laptop's goes on.
      const one = await backChannelLogout(await provider.logoutToken('ivy', phoneSid))
      expect(one.status).toBe(200)
      expect(((await one.json()) as { data: { ended: number } }).data.ended).toBe(1)
      expect((await inAcme(phone.session!)).status).toBe(401)
      expect((await inAcme(laptop.session!)).status).toBe(200)
      // Every session of the subject.
      expect((await backChannelLogout(await provider.logoutToken('ivy'))).status).toBe(200)
      expect((await inAcme(laptop.session!)).status).toBe(401)
      const signOuts = (await t.call('GET', '/v1/audit-events?operation=auth.signOut')).body.data.items
      expect(signOuts[0]).toMatchObject({ actor: { kind: 'person', name: 'ivy@corp.test' }, outcome: 'allowed' })
    })

    it('refuses a logout token the provider did not sign, or one that is not a logout token', async () => {
      provider.accounts.set('jon', { email: 'jon@corp.test', emailVerified: true, groups: ['automation-ops'] })
      const { session } = await ssoSignIn('jon')
      const { privateKey } = await generateKeyPair('RS256')
      const forged = await new SignJWT({
        events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
        jti: crypto.randomUUID(),
      })
        .setProtectedHeader({ alg: 'RS256' })
        .setIssuer(provider.issuer)
        .setAudience(provider.clientId)
        .setSubject('jon')
        .setIssuedAt()
        .setExpirationTime('2m')
        .sign(privateKey)
      const refused = await backChannelLogout(forged)
      expect(refused.status).toBe(400)
      expect(((await refused.json()) as { message: string }).message).toContain('logout token')
      // An ID token is signed by the provider, but it is not a logout token.
      expect((await backChannelLogout(await provider.idToken('jon'))).status).toBe(400)
      expect((await backChannelLogout('not a jwt')).status).toBe(400)
      expect((await backChannelLogout(await provider.logoutToken('jon'), 'nobody')).status).toBe(404)
      expect((await asSession(t, session!, t.orgId)('GET', '/v1/workflows')).status).toBe(200)
    })

    it('checks the groups again at least hourly while a session is used', async () => {
      provider.accounts.set('gil', {
        email: 'gil@corp.test',
        emailVerified: true,
        groups: ['automation-ops', 'platform'],
      })
      const { session } = await ssoSignIn('gil')
      const inAcme = asSession(t, session!, t.orgId)
      expect((await inAcme('GET', '/v1/workflows')).status).toBe(200)
      provider.accounts.set('gil', { email: 'gil@corp.test', emailVerified: true, groups: ['platform'] })
      // Within the hour the session goes on as it was; past it, the provider is asked on the next request.
      clock.skip(30 * 60_000)
      expect((await inAcme('GET', '/v1/workflows')).status).toBe(200)
      clock.skip(31 * 60_000)
      expect((await inAcme('GET', '/v1/workflows')).status).toBe(403)
      expect((await asSession(t, session!, beta.orgId)('GET', '/v1/workflows')).status).toBe(200)
      // A person the directory deleted: the refresh is refused and the session ends.
      provider.accounts.delete('gil')
      clock.skip(61 * 60_000)
      expect((await asSession(t, session!, beta.orgId)('GET', '/v1/workflows')).status).toBe(401)
    })

    it('checks sessions nobody uses at least hourly: a person taken out of every group loses them', async () => {
      provider.accounts.set('kim', { email: 'kim@corp.test', emailVerified: true, groups: ['automation-ops'] })
      const { session } = await ssoSignIn('kim')
      const isMember = async () =>
        ((await t.call('GET', '/v1/members?limit=100')).body.data.items as Array<{ email: string }>).some(
          (m) => m.email === 'kim@corp.test',
        )
      expect(await isMember()).toBe(true)
      provider.accounts.set('kim', { email: 'kim@corp.test', emailVerified: true, groups: [] })
      // Within the hour the sweep leaves the session alone; past it, the provider is asked without a request.
      clock.skip(30 * 60_000)
      await t.system.oidc.sweepSessions()
      expect(await isMember()).toBe(true)
      clock.skip(31 * 60_000)
      expect(await t.system.oidc.sweepSessions()).toBeGreaterThanOrEqual(1)
      expect(await isMember()).toBe(false)
      expect((await asSession(t, session!)('GET', '/v1/auth/session')).status).toBe(401)
    })

    it('links an existing person only once they give their password: a provider asserting the email takes over nobody', async () => {
      const bob = await addMember(t, 'bob@corp.test', 'viewer')
      provider.accounts.set('bob-at-corp', { email: 'bob@corp.test', emailVerified: true, groups: ['automation-ops'] })
      const { response, session } = await ssoSignIn('bob-at-corp', '/runs')
      expect(response.status).toBe(303)
      expect(session).toBeNull()
      expect(response.headers.get('location')).toStartWith('/signin?ssoLink=')
      const link = cookieNamed(response, 'automaton_oidc_link')!
      expect(await membershipsOf(bob.token)).toEqual(['acme:viewer'])

      const linkWith = (password: string) =>
        t.system.app.handle(
          new Request('http://localhost/v1/auth/oidc/link', {
            method: 'POST',
            headers: { 'content-type': 'application/json', cookie: `automaton_oidc_link=${link}` },
            body: JSON.stringify({ password }),
          }),
        )
      expect((await linkWith('not the password at all')).status).toBe(401)
      const linked = await linkWith(PASSWORD)
      expect(linked.status).toBe(200)
      const body = (await linked.json()) as { data: { user: { id: string } } }
      expect(body.data.user.id).toBe(bob.userId)
      expect((await linkWith(PASSWORD)).status).toBe(400)

      // Linked: the next sign-in goes straight in, with the role the groups give.
      const again = await ssoSignIn('bob-at-corp')
      expect(again.session).toMatch(/^sess_/)
      expect(await membershipsOf(again.session!)).toEqual(['acme:developer'])
    })

    it('refuses a first sign-in whose email the provider has not verified', async () => {
      provider.accounts.set('eve', { email: 'eve@corp.test', emailVerified: false, groups: ['platform'] })
      const { response, session } = await ssoSignIn('eve')
      expect(response.status).toBe(403)
      expect(session).toBeNull()
    })

    it('refuses password sign-in to members of an organization that requires single sign-on; the operator link still works', async () => {
      const dee = await addMember(t, 'dee@corp.test', 'developer')
      expect((await signIn(t, 'dee@corp.test')).status).toBe(200)
      // An owner sets it among the organization's settings.
      const set = await t.call('PUT', `/v1/organizations/${t.orgId}/settings`, { body: { ssoRequired: true } })
      expect(set.status).toBe(200)
      expect(set.body.data).toMatchObject({ ssoRequired: true, runRetention: null })
      try {
        const refused = await signIn(t, 'dee@corp.test')
        expect(refused.status).toBe(403)
        expect(JSON.stringify(refused.body)).toContain('requires single sign-on')
        const { token } = await t.system.oidc.createSignInLink('dee@corp.test')
        const used = await get(`/v1/auth/sign-in-link?token=${encodeURIComponent(token)}`)
        expect(used.status).toBe(303)
        const session = cookieNamed(used, 'automaton_session')!
        expect((await asSession(t, session)('GET', '/v1/auth/session')).body.data.user.id).toBe(dee.userId)
        expect((await get(`/v1/auth/sign-in-link?token=${encodeURIComponent(token)}`)).status).toBe(401)
      } finally {
        await t.system.oidc.requireSso('acme', false)
      }
    })

    it('accepts only a path on this site as returnTo', async () => {
      for (const returnTo of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'workflows'])
        expect((await get(`/v1/auth/oidc/login?returnTo=${encodeURIComponent(returnTo)}`)).status).toBe(400)
    })

    it('honours a state once, and only in the browser that started the sign-in', async () => {
      provider.accounts.set('fay', { email: 'fay@corp.test', emailVerified: true, groups: ['auditors'] })
      const login = await get('/v1/auth/oidc/login')
      const state = cookieNamed(login, 'automaton_oidc_state')!
      const back = await provider.authorize(login.headers.get('location')!, CALLBACK, 'fay')
      const path = `${back.pathname}${back.search}`
      // Another browser (no state cookie) cannot finish it: no login planted in someone else's browser.
      expect((await get(path)).status).toBe(400)
      expect((await get(path, `automaton_oidc_state=${state}`)).status).toBe(303)
      expect((await get(path, `automaton_oidc_state=${state}`)).status).toBe(400)
    })

    it("offers providers the operator added, by name, beside the environment's", async () => {
      await t.system.oidc.registry.add({
        name: 'corp',
        displayName: 'Corp directory',
        issuer: provider.issuer,
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
        groupsClaim: 'groups',
        groupRoles: [{ group: 'platform', organization: beta.orgId, role: 'viewer' }],
        scopes: ['groups'],
        jit: true,
      })
      try {
        const names = (await t.call('GET', '/v1/auth/oidc/providers', { key: null })).body.data.items
        expect(names.map((p: { name: string }) => p.name)).toEqual(['default', 'corp'])
        const login = await get('/v1/auth/oidc/login?provider=corp&returnTo=/runs')
        expect(login.status).toBe(302)
        const state = cookieNamed(login, 'automaton_oidc_state')!
        provider.accounts.set('hal', { email: 'hal@corp.test', emailVerified: true, groups: ['platform'] })
        const back = await provider.authorize(login.headers.get('location')!, CALLBACK, 'hal')
        const done = await get(`${back.pathname}${back.search}`, `automaton_oidc_state=${state}`)
        expect(done.headers.get('location')).toBe('/runs')
        expect(await membershipsOf(cookieNamed(done, 'automaton_session')!)).toEqual(['beta:viewer'])
        expect((await get('/v1/auth/oidc/login?provider=nobody')).status).toBe(404)
      } finally {
        await t.system.oidc.registry.remove('corp')
      }
    })

    it("answers the provider's error, and a provider that cannot be reached, with the error body", async () => {
      const login = await get('/v1/auth/oidc/login')
      const state = cookieNamed(login, 'automaton_oidc_state')!
      const denied = await get(
        `/v1/auth/oidc/callback?error=access_denied&error_description=${encodeURIComponent('the person said no')}&state=${state}`,
        `automaton_oidc_state=${state}`,
      )
      expect(denied.status).toBe(400)
      expect(denied.headers.get('content-type')).toContain('application/json')
      expect(await denied.json()).toMatchObject({
        code: 400,
        message: 'the identity provider answered access_denied: the person said no',
      })
      const unreachable = await t.openSibling({ AUTOMATON_OIDC_ISSUER: 'http://127.0.0.1:9/' })
      try {
        const refused = await unreachable.system.app.handle(new Request('http://localhost/v1/auth/oidc/login'))
        expect(refused.status).toBe(503)
        expect(((await refused.json()) as { message: string }).message).toContain('cannot be reached')
      } finally {
        await unreachable.stop()
      }
    })

    it('accepts a plain-http issuer only when its host is listed in AUTOMATON_ALLOW_PRIVATE_TARGETS', async () => {
      const strict = await t.openSibling({ AUTOMATON_ALLOW_PRIVATE_TARGETS: '' })
      try {
        const login = await strict.system.app.handle(new Request('http://localhost/v1/auth/oidc/login'))
        expect(login.status).toBe(400)
        expect(await login.text()).toContain('AUTOMATON_ALLOW_PRIVATE_TARGETS')
      } finally {
        await strict.stop()
      }
    })
  })
}
