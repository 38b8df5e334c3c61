/**
 * What clients see while Postgres cannot be reached (a proxy of the test's own is cut): every
 * request that needs the database answers 503 with Retry-After and the error body, at once —
 * whether the database was needed to check the caller's key or session (before the body is
 * read), to read or to write — and `/readyz` says so. Once the database is back, everything
 * answers as before, by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { freshPostgresUrl, TEST_DATABASE_URL, warnSkipped } from '../helpers/services.ts'
import { type CallResult, openTestSystem, type TestSystem } from '../helpers/system.ts'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts'
import { addMember } from '../helpers/people.ts'
import { eventually } from '../helpers/eventually.ts'

const NODES = { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'hi' } } }

/** A 503 with Retry-After and the specification's error body. */
function expectUnavailable(answer: CallResult, what: string) {
  expect({ what, status: answer.status }).toEqual({ what, status: 503 })
  expect(answer.headers.get('retry-after')).toBe('1')
  expect(answer.body).toEqual({ code: 503, message: expect.any(String), details: [], requestId: expect.any(String) })
}

if (!TEST_DATABASE_URL) warnSkipped('the API during a Postgres outage', 'AUTOMATON_TEST_DATABASE_URL')
else {
  describe('the API while Postgres is unreachable', () => {
    let db: Awaited<ReturnType<typeof freshPostgresUrl>>
    let proxy: TcpProxy
    let t: TestSystem
    let workflow: { id: string; triggerSecret: string }
    let fresh: { orgId: string; key: string }
    let session: string

    beforeAll(async () => {
      db = await freshPostgresUrl()
      proxy = await startTcpProxy(db.url)
      t = await openTestSystem('postgres', { AUTOMATON_DATABASE_URL: proxy.via(db.url) })
      const created = await t.call('POST', '/v1/workflows', {
        body: { definition: { triggerNodeIds: ['root'], nodes: NODES } },
      })
      workflow = (await t.call('POST', `/v1/workflows/${created.body.data.id}/publish`)).body.data
      // A key and a session that no request has used yet: checking them needs the database.
      fresh = await t.newOrganization('other')
      session = (await addMember(t, 'ada@example.com')).token
    })
    afterAll(async () => {
      await proxy.restore()
      await t?.close()
      await proxy.close()
      await db.drop()
    })

    it('answers 503 with Retry-After to everything that needs the database, while it is still away', async () => {
      await proxy.cut()
      const answers: Array<[string, Promise<CallResult>]> = [
        // The key is checked in the body hook, before the body is read: this was a 400.
        [
          'a write with a key not checked yet',
          t.call('POST', '/v1/workflows', {
            key: fresh.key,
            body: { definition: { triggerNodeIds: ['root'], nodes: NODES } },
          }),
        ],
        ['a read with a key not checked yet', t.call('GET', '/v1/workflows', { key: fresh.key })],
        [
          'a write with a key checked before',
          t.call('POST', '/v1/workflows', { body: { definition: { triggerNodeIds: ['root'], nodes: NODES } } }),
        ],
        ['a read with a key checked before', t.call('GET', `/v1/workflows/${workflow.id}`)],
        ['a list of runs', t.call('GET', '/v1/runs')],
        ['a run of the API', t.call('POST', `/v1/workflows/${workflow.id}/run`, { body: {} })],
        [
          'a webhook',
          t.call('POST', `/v1/webhooks/${workflow.triggerSecret}`, { key: null, body: { hello: 'world' } }),
        ],
        ['a session', t.call('GET', '/v1/auth/session', { key: session })],
        [
          'a sign-in',
          t.call('POST', '/v1/auth/login', {
            key: null,
            body: { email: 'ada@example.com', password: 'wrong password, but who can tell' },
          }),
        ],
      ]
      // The database stays away until the next test: a request waiting for it would never be
      // answered (and fail on the test's timeout), so every answer here is one that did not wait.
      for (const [what, answer] of answers) expectUnavailable(await answer, what)

      const ready = await t.call('GET', '/readyz', { key: null })
      expect(ready.status).toBe(503)
      expect(ready.body.checks.store).toStartWith('unreachable')
      expect((await t.call('GET', '/healthz', { key: null })).status).toBe(200)
    })

    it('answers as before once the database is back', async () => {
      await proxy.restore()
      await eventually(
        async () => (await t.call('GET', '/readyz', { key: null })).status === 200,
        '/readyz answering 200',
      )
      expect((await t.call('GET', '/v1/workflows', { key: fresh.key })).status).toBe(200)
      expect((await t.call('GET', '/v1/auth/session', { key: session })).status).toBe(200)
      const run = await t.call('POST', `/v1/webhooks/${workflow.triggerSecret}`, {
        key: null,
        body: { hello: 'again' },
      })
      expect(run.status).toBe(200)
    })
  })
}
