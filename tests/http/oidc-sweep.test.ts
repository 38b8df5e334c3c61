/**
 * The sweep of single sign-on sessions nobody uses, at scale: one pass checks every session due,
 * more than one batch of them, and a pass asked for while one runs joins it instead of starting
 * a second one beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { SqlValue } from '../../core/ports/store.ts'
import { OIDC_SWEEP_BATCH } from '../../core/services/oidc-sessions.ts'
import { createSkewedClock } from '../helpers/clock.ts'
import { type TestIdentityProvider, startIdentityProvider } from '../helpers/identity-provider.ts'
import { storeKinds } from '../helpers/services.ts'
import { CALLBACK, openSignOnSystem } from '../helpers/sign-on.ts'
import type { TestSystem } from '../helpers/system.ts'

/** Sessions past one batch. */
const SESSIONS = OIDC_SWEEP_BATCH + 20

for (const kind of storeKinds()) {
  describe(`the sweep of sign-on sessions (${kind})`, () => {
    let t: TestSystem
    let provider: TestIdentityProvider
    // The real time (the provider's tokens carry it), moved forward on demand.
    const clock = createSkewedClock()

    beforeAll(async () => {
      provider = await startIdentityProvider(CALLBACK)
      t = await openSignOnSystem(kind, provider, clock, { AUTOMATON_OIDC_GROUP_ROLES: 'automation-ops=acme:developer' })
    })
    afterAll(async () => {
      await t?.close()
      await provider?.stop()
    })

    /** Signs `subject` in at the provider and answers the session's id. */
    async function ssoSessionId(subject: string): Promise<string> {
      const get = (path: string, cookie = '') =>
        t.system.app.handle(new Request(`http://localhost${path}`, { headers: cookie ? { cookie } : {} }))
      const login = await get('/v1/auth/oidc/login?returnTo=/')
      const state = login.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .find((c) => c.startsWith('automaton_oidc_state='))!
      const back = await provider.authorize(login.headers.get('location')!, CALLBACK, subject)
      expect((await get(`${back.pathname}${back.search}`, state)).status).toBe(303)
      const row = await t.system.store.get<{ session_id: string }>(
        'SELECT session_id FROM oidc_sessions WHERE subject = $1',
        [subject],
      )
      return row!.session_id
    }

    it('checks more sessions than one batch in one pass, and does not run two passes side by side', async () => {
      provider.accounts.set('lee', { email: 'lee@corp.test', emailVerified: true, groups: ['automation-ops'] })
      const original = await ssoSessionId('lee')
      // Sessions the provider gave no refresh token for: their first check ends them.
      await t.system.store.write(async (tx) => {
        const session = (await tx.get<Record<string, SqlValue>>('SELECT * FROM sessions WHERE id = $1', [original]))!
        const link = (await tx.get<Record<string, SqlValue>>('SELECT * FROM oidc_sessions WHERE session_id = $1', [
          original,
        ]))!
        for (let i = 0; i < SESSIONS; i++) {
          const id = `${original}_${i}`
          await tx.run(
            'INSERT INTO sessions (id, token_hash, user_id, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
            [id, `hash_${id}`, session.user_id, session.created_at, session.last_seen_at, session.expires_at],
          )
          await tx.run(
            'INSERT INTO oidc_sessions (session_id, provider, subject, sealed_refresh_token, checked_at) VALUES ($1, $2, $3, NULL, $4)',
            [id, link.provider, link.subject, link.checked_at],
          )
        }
      })
      clock.skip(61 * 60_000)
      const [first, second] = await Promise.all([t.system.oidc.sweepSessions(), t.system.oidc.sweepSessions()])
      expect(first).toBe(SESSIONS)
      expect(second).toBe(SESSIONS)
      const live = await t.system.store.all<{ id: string }>(
        'SELECT id FROM sessions WHERE user_id = (SELECT user_id FROM sessions WHERE id = $1) AND revoked_at IS NULL',
        [original],
      )
      expect(live.map((r) => r.id)).toEqual([original])
    })
  })
}
