/**
 * People: sign-in sessions as callers (bearer and cookie with CSRF), X-Org-ID, invitations that
 * need consent (an existing account's by its session, never its password), sign-in throttled in
 * the database (attempts sent at once, two processes, password changes), JSON-only sign-in,
 * expiry on the Clock port, sessions across a restart, removal and password change ending
 * sessions, and the interests switch. Every organization route's permission is also checked
 * with a session caller.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Clock } from '../../core/ports/clock.ts'
import { ROLE_PERMISSIONS } from '../../core/domain/permissions.ts'
import { addMember, asSession, fromAddress, PASSWORD, signIn } from '../helpers/people.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

/** The real time, moved forward on demand: the engine keeps running, sessions age at once. */
function skewedClock(): Clock & { skip(ms: number): void } {
  let skew = 0
  return {
    now: () => Date.now() + skew,
    skip: (ms) => {
      skew += ms
    },
  }
}

const HOUR = 3600_000
const DEFINITION = {
  triggerNodeIds: ['root'],
  nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'hi' } } },
}

for (const kind of storeKinds()) {
  describe(`people (${kind})`, () => {
    let t: TestSystem
    const clock = skewedClock()
    beforeAll(async () => {
      t = await openTestSystem(kind, { AUTOMATON_SESSION_IDLE: '2h', AUTOMATON_SESSION_MAX_AGE: '1d' }, { clock })
    })
    afterAll(() => t.close())

    it('invites a person, who joins only by accepting, then signs in and calls the API with the bearer token', async () => {
      const invited = await t.call('POST', '/v1/members', {
        body: { email: `Ann-${kind}@Example.com`, role: 'developer' },
      })
      expect(invited.status).toBe(200)
      expect(invited.body.data).toMatchObject({
        email: `ann-${kind}@example.com`,
        role: 'developer',
        organizationId: t.orgId,
      })
      expect(invited.body.data.id).toMatch(/^inv_/)
      expect(invited.body.data.token).toMatch(/^invite_/)
      // Not a member before accepting; the invitation is listed and its token never is.
      const members = (await t.call('GET', '/v1/members?limit=100')).body.data.items
      expect(members.map((m: { email: string }) => m.email)).not.toContain(`ann-${kind}@example.com`)
      const pending = (await t.call('GET', '/v1/invitations')).body.data.items
      expect(pending.map((i: { id: string }) => i.id)).toContain(invited.body.data.id)
      expect(JSON.stringify(pending)).not.toContain(invited.body.data.token)

      const weak = await t.call('POST', '/v1/auth/accept-invitation', {
        key: null,
        body: { token: invited.body.data.token, name: 'Ann', password: 'short' },
      })
      expect(weak.status).toBe(400)
      const accepted = await t.call('POST', '/v1/auth/accept-invitation', {
        key: null,
        body: { token: invited.body.data.token, name: 'Ann', password: PASSWORD },
      })
      expect(accepted.status).toBe(200)
      expect(accepted.body.data.user).toMatchObject({
        email: `ann-${kind}@example.com`,
        name: 'Ann',
        memberships: [{ organizationId: t.orgId, role: 'developer' }],
      })
      // An invitation works once.
      const again = await t.call('POST', '/v1/auth/accept-invitation', {
        key: null,
        body: { token: invited.body.data.token, name: 'Ann', password: PASSWORD },
      })
      expect(again.status).toBe(404)
      expect((await t.call('GET', '/v1/invitations')).body.data.items.map((i: { id: string }) => i.id)).not.toContain(
        invited.body.data.id,
      )

      const login = await signIn(t, `ANN-${kind}@example.com`)
      expect(login.status).toBe(200)
      expect(login.body.data.token).toMatch(/^sess_/)
      expect(login.headers.get('set-cookie')).toMatch(
        /^automaton_session=sess_[^;]+; HttpOnly; SameSite=Lax; Path=\/; Max-Age=86400$/,
      )
      const call = asSession(t, login.body.data.token)
      const me = (await call('GET', '/v1/me')).body.data
      expect(me).toMatchObject({
        kind: 'session',
        organizationId: t.orgId,
        userId: accepted.body.data.user.id,
        keyId: '',
        role: 'developer',
      })
      expect(me.permissions).toEqual([...ROLE_PERMISSIONS.developer].sort())

      // What a person creates carries their user id.
      const created = await call('POST', '/v1/workflows', { body: { name: 'by ann', definition: DEFINITION } })
      expect(created.status).toBe(200)
      expect(created.body.data).toMatchObject({ createdBy: me.userId, ownerUserId: me.userId })
      const key = await call('POST', '/v1/api-keys', { body: { name: 'ann script', scope: 'read' } })
      expect(key.status).toBe(200)
      expect(key.body.data.userId ?? key.body.data.apiKey?.userId).toBe(me.userId)
      // A developer may not invite.
      const denied = await call('POST', '/v1/members', { body: { email: 'x@example.com', role: 'viewer' } })
      expect(denied.status).toBe(403)
      expect(denied.body.details).toEqual([{ message: 'missing permission', permission: 'member:invite' }])
    })

    it('answers the same 401 for an unknown email and a wrong password, and throttles guessing with 429 and Retry-After', async () => {
      const bob = await addMember(t, `bob-${kind}@example.com`, 'viewer')
      const unknown = await signIn(t, `nobody-${kind}@example.com`, 'whatever-password')
      const wrong = await signIn(t, bob.email, 'wrong-password!')
      expect(unknown.status).toBe(401)
      expect(wrong.status).toBe(401)
      expect(unknown.body.message).toBe(wrong.body.message)
      expect(unknown.body.details).toEqual(wrong.body.details)

      for (let i = 0; i < 4; i++) expect((await signIn(t, bob.email, `guess-number-${i}`)).status).toBe(401)
      // Five failures: the account waits, even with the right password.
      const throttled = await signIn(t, bob.email)
      expect(throttled.status).toBe(429)
      expect(throttled.body.code).toBe(429)
      const retryAfter = Number(throttled.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(15 * 60)
      // Once the window has passed, the right password works again.
      clock.skip(15 * 60_000 + 1000)
      expect((await signIn(t, bob.email)).status).toBe(200)
    })

    /** How many answers had each status. */
    const statuses = (answers: ReadonlyArray<{ status: number }>) => {
      const counts: Record<number, number> = {}
      for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1
      return counts
    }
    const login = (email: string, password: string) => ({ body: { email, password } })

    it('checks at most 5 of 40 wrong passwords sent at once for one account; the others wait with 429', async () => {
      const kim = await addMember(t, `kim-${kind}@example.com`, 'viewer')
      const from = fromAddress(t, '198.51.100.10')
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => from('POST', '/v1/auth/login', login(kim.email, `guess-number-${i}`))),
      )
      expect(statuses(answers)).toEqual({ 401: 5, 429: 35 })
      for (const a of answers.filter((a) => a.status === 429)) {
        expect(a.body.code).toBe(429)
        expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0)
      }
      // The account waits now, whatever the password and wherever it comes from.
      expect((await fromAddress(t, '198.51.100.11')('POST', '/v1/auth/login', login(kim.email, PASSWORD))).status).toBe(
        429,
      )
    })

    it('lets one address fail 20 times, however many sign-ins of unknown emails it sends at once', async () => {
      const from = fromAddress(t, '198.51.100.20')
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          from('POST', '/v1/auth/login', login(`nobody-${i}-${kind}@example.com`, 'whatever-password')),
        ),
      )
      expect(statuses(answers)).toEqual({ 401: 20, 429: 40 })
      // The address waits, even with a person's right password; another address does not.
      const lee = await addMember(t, `lee-${kind}@example.com`, 'viewer')
      expect((await from('POST', '/v1/auth/login', login(lee.email, PASSWORD))).status).toBe(429)
      expect((await fromAddress(t, '198.51.100.21')('POST', '/v1/auth/login', login(lee.email, PASSWORD))).status).toBe(
        200,
      )
    })

    it('counts failed sign-ins in the database: two processes on it share one limit', async () => {
      const moe = await addMember(t, `moe-${kind}@example.com`, 'viewer')
      const sibling = await t.openSibling({}, { clock })
      try {
        const here = fromAddress(t, '198.51.100.30')
        const there = fromAddress(sibling, '198.51.100.30')
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 === 0 ? here : there)('POST', '/v1/auth/login', login(moe.email, `guess-number-${i}`)),
          ),
        )
        expect(statuses(answers)).toEqual({ 401: 5, 429: 15 })
        for (const process of [here, there])
          expect((await process('POST', '/v1/auth/login', login(moe.email, PASSWORD))).status).toBe(429)
        // Once the window has passed, signing in at one process clears the count at both.
        clock.skip(15 * 60_000 + 1000)
        expect((await there('POST', '/v1/auth/login', login(moe.email, PASSWORD))).status).toBe(200)
        for (let i = 0; i < 5; i++)
          expect((await here('POST', '/v1/auth/login', login(moe.email, `again-${i}`))).status).toBe(401)
        expect((await there('POST', '/v1/auth/login', login(moe.email, PASSWORD))).status).toBe(429)
      } finally {
        await sibling.stop()
      }
    })

    it('counts wrong current passwords of a password change like failed sign-ins: the sixth waits with 429', async () => {
      const quinn = await addMember(t, `quinn-${kind}@example.com`, 'viewer')
      const call = asSession(t, quinn.token)
      const change = (currentPassword: string) =>
        call('POST', '/v1/auth/password', { body: { currentPassword, newPassword: 'a brand new password' } })
      for (let i = 0; i < 5; i++) expect((await change(`guess-number-${i}`)).status).toBe(403)
      const throttled = await change('guess-number-5')
      expect(throttled.status).toBe(429)
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0)
      // The right password waits too, and so does signing in to the account.
      expect((await change(PASSWORD)).status).toBe(429)
      expect(
        (await fromAddress(t, '198.51.100.50')('POST', '/v1/auth/login', login(quinn.email, PASSWORD))).status,
      ).toBe(429)
    })

    it('takes sign-in as JSON only: a form or text answers 415 and sets no cookie', async () => {
      const rose = await addMember(t, `rose-${kind}@example.com`, 'viewer')
      const form = await t.call('POST', '/v1/auth/login', {
        key: null,
        rawBody: new URLSearchParams({ email: rose.email, password: PASSWORD }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
      expect(form.status).toBe(415)
      expect(Object.keys(form.body).sort()).toEqual(['code', 'details', 'message', 'requestId'])
      expect(form.body).toMatchObject({
        code: 415,
        details: [{ path: '/headers/Content-Type', message: 'expected application/json' }],
      })
      expect(form.headers.get('set-cookie')).toBeNull()
      // Nor JSON labelled as something a page of another site may send without asking.
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
        const r = await t.call('POST', '/v1/auth/login', {
          key: null,
          rawBody: JSON.stringify({ email: rose.email, password: PASSWORD }),
          headers: { 'content-type': type },
        })
        expect({ type, status: r.status, cookie: r.headers.get('set-cookie') }).toEqual({
          type,
          status: 415,
          cookie: null,
        })
      }
      // Accepting an invitation signs a new person in: JSON only as well.
      const invited = (
        await t.call('POST', '/v1/members', { body: { email: `sam-${kind}@example.com`, role: 'viewer' } })
      ).body.data
      const accepted = await t.call('POST', '/v1/auth/accept-invitation', {
        key: null,
        rawBody: new URLSearchParams({ token: invited.token, name: 'Sam', password: PASSWORD }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
      expect(accepted.status).toBe(415)
      expect(accepted.headers.get('set-cookie')).toBeNull()
      expect((await signIn(t, rose.email)).status).toBe(200)
    })

    it("never checks an existing account's password when an invitation is accepted without its session", async () => {
      const other = await t.newOrganization(`people-oracle-${kind}`)
      const nia = await addMember(t, `nia-${kind}@example.com`, 'viewer')
      const invited = (
        await t.call('POST', '/v1/members', { key: other.key, body: { email: nia.email, role: 'viewer' } })
      ).body.data
      const from = fromAddress(t, '198.51.100.40')
      const answers = []
      for (const password of [...Array.from({ length: 8 }, (_, i) => `guess-number-${i}`), PASSWORD]) {
        answers.push(
          await from('POST', '/v1/auth/accept-invitation', { body: { token: invited.token, name: 'Nia', password } }),
        )
      }
      // The right password answers what every wrong one does: 401, no session, no cookie.
      for (const a of answers) {
        expect({
          status: a.status,
          message: a.body.message,
          details: a.body.details,
          data: a.body.data,
          cookie: a.headers.get('set-cookie'),
        }).toEqual({
          status: 401,
          message: answers[0].body.message,
          details: answers[0].body.details,
          data: undefined,
          cookie: null,
        })
      }
      expect(answers[0].body.message).toContain('sign in as the invited person')
      const memberEmails = async () =>
        (await t.call('GET', '/v1/members?limit=100', { key: other.key })).body.data.items.map(
          (m: { email: string }) => m.email,
        )
      expect(await memberEmails()).not.toContain(nia.email)

      // Wrong requests answer the same for an email with an account and one without.
      const fresh = (
        await t.call('POST', '/v1/members', {
          key: other.key,
          body: { email: `nobody-yet-${kind}@example.com`, role: 'viewer' },
        })
      ).body.data
      for (const body of [{}, { name: 'X', password: 'short' }, { password: PASSWORD }]) {
        const existing = await from('POST', '/v1/auth/accept-invitation', { body: { token: invited.token, ...body } })
        const unknown = await from('POST', '/v1/auth/accept-invitation', { body: { token: fresh.token, ...body } })
        expect({
          body,
          status: existing.status,
          message: existing.body.message,
          details: existing.body.details,
        }).toEqual({ body, status: unknown.status, message: unknown.body.message, details: unknown.body.details })
      }

      // Signed in as herself, she joins with the token alone.
      const joined = await asSession(t, nia.token)('POST', '/v1/auth/accept-invitation', {
        body: { token: invited.token },
      })
      expect(joined.status).toBe(200)
      expect(joined.body.data.user.memberships.map((m: { organizationId: string }) => m.organizationId).sort()).toEqual(
        [t.orgId, other.orgId].sort(),
      )
      expect(await memberEmails()).toContain(nia.email)
    })

    it('accepts an invitation for the signed-in invited person only, by bearer or by cookie with its CSRF token', async () => {
      const other = await t.newOrganization(`people-consent-${kind}`)
      const oli = await addMember(t, `oli-${kind}@example.com`, 'viewer')
      const pat = await addMember(t, `pat-${kind}@example.com`, 'viewer')
      const invited = (
        await t.call('POST', '/v1/members', { key: other.key, body: { email: oli.email, role: 'developer' } })
      ).body.data
      // Oli's token in Pat's session: refused, and Pat gains nothing.
      expect(
        (await asSession(t, pat.token)('POST', '/v1/auth/accept-invitation', { body: { token: invited.token } }))
          .status,
      ).toBe(403)
      expect((await asSession(t, pat.token, other.orgId)('GET', '/v1/me')).status).toBe(403)
      // An API key is not the person.
      expect((await t.call('POST', '/v1/auth/accept-invitation', { body: { token: invited.token } })).status).toBe(401)
      // Oli's cookie alone is what another site's page could send: it needs the CSRF token.
      const cookie = { cookie: `automaton_session=${oli.token}` }
      expect(
        (
          await t.call('POST', '/v1/auth/accept-invitation', {
            key: null,
            headers: cookie,
            body: { token: invited.token },
          })
        ).status,
      ).toBe(403)
      const csrf = (await t.call('GET', '/v1/auth/session', { key: null, headers: cookie })).body.data.csrfToken
      const joined = await t.call('POST', '/v1/auth/accept-invitation', {
        key: null,
        headers: { ...cookie, 'x-csrf-token': csrf },
        body: { token: invited.token },
      })
      expect(joined.status).toBe(200)
      expect(joined.body.data.user.id).toBe(oli.userId)
      expect((await asSession(t, oli.token, other.orgId)('GET', '/v1/me')).body.data).toMatchObject({
        organizationId: other.orgId,
        role: 'developer',
      })
    })

    it('needs the CSRF token for cookie requests that change something, and not for bearer ones', async () => {
      const cara = await addMember(t, `cara-${kind}@example.com`, 'developer')
      const cookie = { cookie: `automaton_session=${cara.token}` }
      expect((await t.call('GET', '/v1/me', { key: null, headers: cookie })).body.data.userId).toBe(cara.userId)
      const without = await t.call('POST', '/v1/workflows', {
        key: null,
        headers: cookie,
        body: { name: 'csrf', definition: DEFINITION },
      })
      expect(without.status).toBe(403)
      expect(without.body.message).toContain('X-CSRF-Token')
      const wrong = await t.call('POST', '/v1/workflows', {
        key: null,
        headers: { ...cookie, 'x-csrf-token': 'guess' },
        body: { name: 'csrf', definition: DEFINITION },
      })
      expect(wrong.status).toBe(403)
      const session = (await t.call('GET', '/v1/auth/session', { key: null, headers: cookie })).body.data
      expect(session).toMatchObject({ user: { id: cara.userId }, sessionId: expect.stringMatching(/^ses_/) })
      const ok = await t.call('POST', '/v1/workflows', {
        key: null,
        headers: { ...cookie, 'x-csrf-token': session.csrfToken },
        body: { name: 'csrf', definition: DEFINITION },
      })
      expect(ok.status).toBe(200)
      // The bearer form needs none.
      expect(
        (await asSession(t, cara.token)('POST', '/v1/workflows', { body: { name: 'bearer', definition: DEFINITION } }))
          .status,
      ).toBe(200)
      // Another session's CSRF token does not fit this cookie.
      const other = (await signIn(t, cara.email)).body.data.token
      const otherCsrf = (await asSession(t, other)('GET', '/v1/auth/session')).body.data.csrfToken
      expect(
        (
          await t.call('POST', '/v1/workflows', {
            key: null,
            headers: { ...cookie, 'x-csrf-token': otherCsrf },
            body: { name: 'x', definition: DEFINITION },
          })
        ).status,
      ).toBe(403)
    })

    it("asks a person in several organizations for X-Org-ID, refuses one they are not in, and refuses a key another organization's X-Org-ID", async () => {
      const other = await t.newOrganization(`people-other-${kind}`)
      const third = await t.newOrganization(`people-third-${kind}`)
      const dana = await addMember(t, `dana-${kind}@example.com`, 'viewer')
      // An existing user accepts signed in as herself: no new account, a second membership, the same session.
      const invited = (
        await t.call('POST', '/v1/members', { key: other.key, body: { email: dana.email, role: 'owner' } })
      ).body.data
      const joined = await asSession(t, dana.token)('POST', '/v1/auth/accept-invitation', {
        body: { token: invited.token },
      })
      expect(joined.status).toBe(200)
      expect(joined.body.data.token).toBeUndefined()
      expect(joined.headers.get('set-cookie')).toBeNull()
      expect(joined.body.data.user.id).toBe(dana.userId)
      expect(joined.body.data.user.memberships.map((m: { organizationId: string }) => m.organizationId).sort()).toEqual(
        [t.orgId, other.orgId].sort(),
      )

      const noOrg = await asSession(t, dana.token)('GET', '/v1/workflows')
      expect(noOrg.status).toBe(400)
      expect(noOrg.body.message).toContain('X-Org-ID')
      expect(noOrg.body.details[0]).toMatchObject({ path: '/headers/X-Org-ID' })
      // Personal routes need no organization.
      expect((await asSession(t, dana.token)('GET', '/v1/user/interests/settings')).status).toBe(200)

      const inFirst = await asSession(t, dana.token, t.orgId)('GET', '/v1/me')
      expect(inFirst.body.data).toMatchObject({ organizationId: t.orgId, role: 'viewer' })
      const inOther = await asSession(t, dana.token, other.orgId)('GET', '/v1/me')
      expect(inOther.body.data).toMatchObject({ organizationId: other.orgId, role: 'owner' })
      // Her role follows the organization: a viewer here, an owner there.
      expect(
        (
          await asSession(t, dana.token, t.orgId)('POST', '/v1/workflows', {
            body: { name: 'no', definition: DEFINITION },
          })
        ).status,
      ).toBe(403)
      expect(
        (
          await asSession(t, dana.token, other.orgId)('POST', '/v1/workflows', {
            body: { name: 'yes', definition: DEFINITION },
          })
        ).status,
      ).toBe(200)
      const notMember = await asSession(t, dana.token, third.orgId)('GET', '/v1/workflows')
      expect(notMember.status).toBe(403)
      expect(notMember.body.code).toBe(403)

      expect((await t.call('GET', '/v1/me', { headers: { 'x-org-id': t.orgId } })).status).toBe(200)
      const mismatched = await t.call('GET', '/v1/me', { headers: { 'x-org-id': other.orgId } })
      expect(mismatched.status).toBe(403)
    })

    it("ends a removed member's access to that organization at once, and their sessions when it was their last", async () => {
      const other = await t.newOrganization(`people-removal-${kind}`)
      const erin = await addMember(t, `erin-${kind}@example.com`, 'developer')
      const call = asSession(t, erin.token)
      expect((await call('GET', '/v1/workflows')).status).toBe(200)
      const invited = (
        await t.call('POST', '/v1/members', { key: other.key, body: { email: erin.email, role: 'viewer' } })
      ).body.data
      expect((await call('POST', '/v1/auth/accept-invitation', { body: { token: invited.token } })).status).toBe(200)

      expect((await t.call('DELETE', `/v1/members/${erin.userId}`)).status).toBe(200)
      const here = await asSession(t, erin.token, t.orgId)('GET', '/v1/workflows')
      expect(here.status).toBe(403)
      // Still a member of the other organization: the session lives on, there only (no X-Org-ID needed now).
      expect((await call('GET', '/v1/me')).body.data.organizationId).toBe(other.orgId)

      expect((await t.call('DELETE', `/v1/members/${erin.userId}`, { key: other.key })).status).toBe(200)
      const gone = await call('GET', '/v1/me')
      expect(gone.status).toBe(401)
      expect((await call('GET', '/v1/user/interests/settings')).status).toBe(401)
    })

    it('ends every session on a password change and answers a new one; the old password stops working', async () => {
      const fay = await addMember(t, `fay-${kind}@example.com`, 'viewer')
      const second = (await signIn(t, fay.email)).body.data.token
      const wrong = await asSession(t, fay.token)('POST', '/v1/auth/password', {
        body: { currentPassword: 'not-it-at-all', newPassword: 'a brand new password' },
      })
      expect(wrong.status).toBe(403)
      const changed = await asSession(t, fay.token)('POST', '/v1/auth/password', {
        body: { currentPassword: PASSWORD, newPassword: 'a brand new password' },
      })
      expect(changed.status).toBe(200)
      for (const old of [fay.token, second]) expect((await asSession(t, old)('GET', '/v1/me')).status).toBe(401)
      expect((await asSession(t, changed.body.data.token)('GET', '/v1/me')).status).toBe(200)
      expect((await signIn(t, fay.email)).status).toBe(401)
      expect((await signIn(t, fay.email, 'a brand new password')).status).toBe(200)
      // An API key is not a session: no password change with it.
      expect(
        (
          await t.call('POST', '/v1/auth/password', {
            body: { currentPassword: PASSWORD, newPassword: 'whatever password' },
          })
        ).status,
      ).toBe(401)
    })

    it('logs out, and refuses a session past its idle limit or its maximum age (the Clock, not sleeping)', async () => {
      const gus = await addMember(t, `gus-${kind}@example.com`, 'viewer')
      const out = await asSession(t, gus.token)('POST', '/v1/auth/logout')
      expect(out.status).toBe(200)
      expect(out.headers.get('set-cookie')).toContain('Max-Age=0')
      expect((await asSession(t, gus.token)('GET', '/v1/me')).status).toBe(401)

      const idle = (await signIn(t, gus.email)).body.data.token
      clock.skip(2 * HOUR + 1000)
      const expired = await asSession(t, idle)('GET', '/v1/me')
      expect(expired.status).toBe(401)
      expect(expired.body.message).toContain('expired')

      // Used every hour, a session still ends a day after sign-in.
      const busySignIn = await signIn(t, gus.email)
      expect(busySignIn.status).toBe(200)
      const busy = busySignIn.body.data.token
      for (let h = 0; h < 23; h++) {
        clock.skip(HOUR)
        const r = await asSession(t, busy)('GET', '/v1/me')
        expect({ h, status: r.status, message: r.body.message }).toEqual({ h, status: 200, message: 'success' })
      }
      clock.skip(HOUR + 1000)
      expect((await asSession(t, busy)('GET', '/v1/me')).status).toBe(401)

      // A day after they ended, the pruner deletes them.
      const count = async () =>
        Number(
          (await t.system.store.get<{ n: number }>(
            'SELECT COUNT(*) AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1',
            [gus.email],
          ))!.n,
        )
      expect(await count()).toBe(3)
      clock.skip(25 * HOUR)
      await t.system.pruner.pruneNow()
      expect(await count()).toBe(0)
    })

    it('keeps sessions across a restart, stored only as hashes', async () => {
      const hal = await addMember(t, `hal-${kind}@example.com`, 'viewer')
      const rows = await t.system.store.all<{ token_hash: string }>('SELECT token_hash FROM sessions')
      expect(rows.some((r) => r.token_hash.includes(hal.token.slice(5)))).toBe(false)
      const passwordRow = await t.system.store.get<{ password_hash: string }>(
        'SELECT password_hash FROM users WHERE id = $1',
        [hal.userId],
      )
      expect(passwordRow!.password_hash).toMatch(/^\$argon2id\$v=19\$/)
      const sibling = await t.openSibling({}, { clock })
      try {
        expect((await asSession(sibling, hal.token)('GET', '/v1/me')).body.data.userId).toBe(hal.userId)
      } finally {
        await sibling.stop()
      }
    })

    it('switches interests and sets interest tags for people only', async () => {
      const ida = await addMember(t, `ida-${kind}@example.com`, 'viewer')
      const call = asSession(t, ida.token)
      expect((await call('GET', '/v1/user/interests/settings')).body.data).toEqual({ enabled: false })
      const on = await call('PUT', '/v1/user/interests/settings', { body: { enabled: true } })
      expect(on.status).toBe(200)
      expect(on.body).toMatchObject({ code: 200, data: { enabled: true } })
      expect((await call('GET', '/v1/user/interests/settings')).body.data).toEqual({ enabled: true })
      for (const body of [{ enabled: 'yes' }, { enabled: 1 }, { enabled: null }]) {
        const bad = await call('PUT', '/v1/user/interests/settings', { body })
        expect(bad.status).toBe(400)
        expect(bad.body.code).toBe(400)
      }
      // No body, or `{}`, changes nothing and answers the current setting.
      const unchanged = [
        await call('PUT', '/v1/user/interests/settings', { body: {} }),
        await call('PUT', '/v1/user/interests/settings', {
          rawBody: '',
          headers: { 'content-type': 'application/json' },
        }),
        await call('PUT', '/v1/user/interests/settings'),
      ]
      expect(unchanged.map((r) => [r.status, r.body.data])).toEqual(Array(3).fill([200, { enabled: true }]))
      // A key not bound to a user: 401.
      expect((await t.call('PUT', '/v1/user/interests/settings', { body: { enabled: true } })).status).toBe(401)
      expect((await t.call('PUT', '/v1/user/interests/settings', { key: null, body: { enabled: true } })).status).toBe(
        401,
      )

      const catalog = (await t.call('GET', '/v1/triggers')).body.data
      const known = [...new Set((catalog.items ?? catalog).flatMap((e: { tags: string[] }) => e.tags))] as string[]
      expect(known.length).toBeGreaterThan(0)
      const set = await call('PUT', '/v1/user/interests', { body: { tags: [known[0], known[0]] } })
      expect(set.body.data).toEqual({ tags: [known[0]] })
      expect((await call('GET', '/v1/user/interests')).body.data).toEqual({ tags: [known[0]] })
      const unknown = await call('PUT', '/v1/user/interests', { body: { tags: [known[0], 'no-such-tag'] } })
      expect(unknown.status).toBe(400)
      expect(unknown.body.details).toEqual([{ path: '/tags/1', message: 'unknown tag no-such-tag' }])
      expect(
        (await call('PUT', '/v1/user/interests', { body: { tags: Array.from({ length: 51 }, () => known[0]) } }))
          .status,
      ).toBe(400)
    })

    it("checks every organization route's permission for a session caller as for a key", async () => {
      const viewer = await addMember(t, `viewer-${kind}@example.com`, 'viewer')
      const call = asSession(t, viewer.token)
      const spec = (await t.call('GET', '/v1/openapi.json', { key: null })).body
      const allowed = new Set<string>(ROLE_PERMISSIONS.viewer)
      let checked = 0
      for (const [path, operations] of Object.entries(
        spec.paths as Record<string, Record<string, { 'x-permission'?: string }>>,
      )) {
        for (const [method, op] of Object.entries(operations)) {
          const permission = op['x-permission']
          if (!permission || allowed.has(permission)) continue
          const concrete = path.replace(/\{[^}]+\}/g, 'x_1')
          const r = await call(method.toUpperCase(), concrete, {
            body: method === 'get' || method === 'delete' ? undefined : {},
          })
          expect({ route: `${method} ${path}`, status: r.status, details: r.body.details }).toEqual({
            route: `${method} ${path}`,
            status: 403,
            details: [{ message: 'missing permission', permission }],
          })
          checked++
        }
      }
      expect(checked).toBeGreaterThan(30)
    })
  })
}
