/** Connector checks: a connector type's `test`, run after a save (which it never undoes) and on demand. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { defineConnector, definePlugin, Secret, Type } from '../../core/plugin/sdk.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

/** The chat platform's auth.test: the good token belongs to team T1. */
function startPlatform() {
  let calls = 0
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request) {
      calls++
      if (request.headers.get('authorization') !== 'Bearer xoxb-good')
        return Response.json({ ok: false, error: 'invalid_auth' })
      return Response.json({ ok: true, team_id: 'T1' })
    },
  })
  return { url: `http://127.0.0.1:${server.port}/api`, calls: () => calls, stop: () => server.stop(true) }
}

/** A connector type whose check throws, and one without a check. */
const brokenConnector = defineConnector({
  type: 'broken',
  name: 'Broken',
  description: 'A check that throws',
  provider: 'Nobody',
  data: Type.Object({ apiKey: Secret() }),
  test: (ctx) => {
    if (ctx.data.apiKey === 'good') return { ok: true }
    throw new Error('the key was refused')
  },
})
const plainConnector = defineConnector({
  type: 'plain',
  name: 'Plain',
  description: 'No check',
  provider: 'Nobody',
  data: Type.Object({ name: Type.String() }),
})
const plugins = [
  definePlugin({ id: 'broken', connector: brokenConnector }),
  definePlugin({ id: 'plain', connector: plainConnector }),
]

for (const kind of storeKinds()) {
  describe(`connector checks (${kind})`, () => {
    let t: TestSystem
    let platform: ReturnType<typeof startPlatform>
    const chatapp = (botToken: string) => ({
      type: 'chatapp',
      name: 'team',
      data: { teamId: 'T1', botToken, apiBaseUrl: platform.url },
    })

    beforeAll(async () => {
      platform = startPlatform()
      t = await openTestSystem(kind, { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1' }, { plugins })
    })
    afterAll(async () => {
      await t.close()
      platform.stop()
    })

    it('runs the check when a connector is created and answers it as test', async () => {
      const created = await t.call('POST', '/v1/connectors', { body: chatapp('xoxb-good') })
      expect(created.status).toBe(200)
      expect(created.body.data.test).toEqual({ ok: true, message: 'connected to team T1' })
    })

    it('saves a connector whose check fails, and says why', async () => {
      const created = await t.call('POST', '/v1/connectors', { body: chatapp('xoxb-bad') })
      expect(created.status).toBe(200)
      expect(created.body.data.test).toEqual({
        ok: false,
        message: 'the chat platform refused auth.test: invalid_auth',
      })
      expect((await t.call('GET', `/v1/connectors/${created.body.data.id}`)).status).toBe(200)
    })

    it('runs the check again when the connector changes, and on demand', async () => {
      const id = (await t.call('POST', '/v1/connectors', { body: chatapp('xoxb-bad') })).body.data.id
      const updated = await t.call('PUT', `/v1/connectors/${id}`, {
        body: { data: { teamId: 'T1', botToken: 'xoxb-good', apiBaseUrl: platform.url } },
      })
      expect(updated.status).toBe(200)
      expect(updated.body.data.test).toEqual({ ok: true, message: 'connected to team T1' })
      const before = platform.calls()
      const tested = await t.call('POST', `/v1/connectors/${id}/test`)
      expect(tested.status).toBe(200)
      expect(tested.body.data).toEqual({ ok: true, message: 'connected to team T1' })
      expect(platform.calls()).toBe(before + 1)
    })

    it('answers a check that throws as ok: false with its message', async () => {
      const created = await t.call('POST', '/v1/connectors', {
        body: { type: 'broken', name: 'b', data: { apiKey: 'bad' } },
      })
      expect(created.status).toBe(200)
      expect(created.body.data.test).toEqual({ ok: false, message: 'the key was refused' })
      const renamed = await t.call('PUT', `/v1/connectors/${created.body.data.id}`, {
        body: { data: { apiKey: 'good' } },
      })
      expect(renamed.body.data.test).toEqual({ ok: true })
    })

    it('adds nothing for a type without a check, and answers null on demand', async () => {
      const created = await t.call('POST', '/v1/connectors', {
        body: { type: 'plain', name: 'p', data: { name: 'x' } },
      })
      expect(created.status).toBe(200)
      expect(created.body.data.test).toBeUndefined()
      const tested = await t.call('POST', `/v1/connectors/${created.body.data.id}/test`)
      expect(tested.status).toBe(200)
      expect(tested.body.data).toBeNull()
    })

    it('answers 404 for an unknown connector and needs connector:read', async () => {
      expect((await t.call('POST', '/v1/connectors/con_missing/test')).status).toBe(404)
      const other = await t.newOrganization(`checks-other-${kind}`)
      const id = (await t.call('POST', '/v1/connectors', { body: chatapp('xoxb-good') })).body.data.id
      expect((await t.call('POST', `/v1/connectors/${id}/test`, { key: other.key })).status).toBe(404)
      const account = await t.call('POST', '/v1/service-accounts', {
        body: { name: 'nobody', permissions: ['action:read'] },
      })
      const key = (
        await t.call('POST', '/v1/api-keys', { body: { name: 'n', serviceAccountId: account.body.data.id } })
      ).body.data.key
      const refused = await t.call('POST', `/v1/connectors/${id}/test`, { key })
      expect(refused.status).toBe(403)
      expect(refused.body.details).toEqual([{ message: 'missing permission', permission: 'connector:read' }])
    })
  })
}
