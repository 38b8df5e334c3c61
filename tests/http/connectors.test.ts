/** Connectors: CRUD on the connector types of the loaded plugins, secrets sealed at rest and masked on output, used by nodes. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { defineAction, defineConnector, definePlugin, Secret, Type } from '../../core/plugin/sdk.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, createWorkflow, linear, runAndWait } from '../helpers/workflows.ts'

const vaultConnector = defineConnector({
  type: 'vault',
  name: 'Vault',
  description: 'A test service with an API key',
  provider: 'Vault Inc.',
  data: Type.Object({
    url: Type.String({ minLength: 1 }),
    apiKey: Secret(),
    region: Type.Optional(Type.String({ default: 'eu' })),
    pin: Type.Optional(Secret()),
  }),
})
/** Calls the service with its key, and (carelessly) echoes the key in its result, logs and errors. */
const vaultCall = defineAction({
  type: 'vault-call',
  name: 'Call',
  description: 'Calls the vault',
  connector: vaultConnector,
  payload: Type.Object({ path: Type.String(), fail: Type.Optional(Type.Boolean()) }),
  result: Type.Any(),
  async run(ctx) {
    const { url, apiKey, region } = ctx.connector!
    ctx.log(`calling with ${apiKey}`)
    ctx.vars.set('seen', apiKey)
    const response = await ctx.http.send({
      method: 'GET',
      url: `${url}${ctx.payload.path}?key=${apiKey}`,
      headers: { authorization: `Bearer ${apiKey}` },
    })
    if (ctx.payload.fail) throw new Error(`refused GET ${url}?key=${apiKey}`)
    return { status: response.status, region, echoed: apiKey }
  },
})
const vault = definePlugin({ id: 'vault', connector: vaultConnector, actions: [vaultCall] })

const API_KEY = 'vk_live_SECRET_0123456789abcdef'

for (const kind of storeKinds()) {
  describe(`connectors (${kind})`, () => {
    let t: TestSystem
    let receiver: Receiver
    beforeAll(async () => {
      receiver = startReceiver()
      t = await openTestSystem(kind, { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32' }, { plugins: [vault] })
    })
    afterAll(async () => {
      await t.close()
      await receiver.stop()
    })
    const create = async (data: Record<string, unknown>, name = 'main', type = 'vault') => {
      const r = await t.call('POST', '/v1/connectors', { body: { type, name, data } })
      if (r.status !== 200) throw new Error(`create failed: ${JSON.stringify(r.body)}`)
      return r.body.data
    }

    it('creates a connector whose secrets are sealed at rest and masked on output', async () => {
      const r = await t.call('POST', '/v1/connectors', {
        body: {
          type: 'chatapp',
          name: 'Acme team',
          description: 'main workspace',
          data: { teamId: 'T0123', botToken: 'xoxb-1234567890-abcdef', extra: 'dropped' },
        },
      })
      expect(r.status).toBe(200)
      // The type's check runs after the save; without an API base URL it has nothing to ask.
      const { test, ...c } = r.body.data
      expect(test).toEqual({ ok: true, message: 'no API base URL: the token is not checked' })
      expect(c.id).toMatch(/^con_/)
      expect(c).toMatchObject({
        name: 'Acme team',
        description: 'main workspace',
        type: 'chatapp',
        provider: 'Chat platform',
        organizationId: t.orgId,
        maskedData: { teamId: 'T0123', botToken: '••••cdef' },
      })
      expect(c.maskedData.extra).toBeUndefined()
      expect(Object.keys(c).sort()).toEqual([
        'createdAt',
        'createdBy',
        'description',
        'id',
        'maskedData',
        'name',
        'organizationId',
        'provider',
        'type',
        'updatedAt',
        'updatedBy',
      ])
      const rows = await t.system.store.all<Record<string, unknown>>('SELECT * FROM connectors WHERE id = $1', [c.id])
      expect(JSON.stringify(rows)).not.toContain('xoxb-1234567890')
      expect(JSON.stringify(rows)).not.toContain('••••')
      expect(JSON.parse(rows[0].public_data as string)).toEqual({ teamId: 'T0123' })
      expect((await t.call('GET', `/v1/connectors/${c.id}`)).body.data).toEqual(c)
      const listed = await t.call('GET', '/v1/connectors?type=chatapp')
      expect(listed.body.data).toMatchObject({ hasMore: false, items: [c], limit: 20, offset: 0 })
      expect(
        (await t.call('GET', '/v1/connectors?type=vault')).body.data.items.map((i: { id: string }) => i.id),
      ).not.toContain(c.id)
    })

    it('masks short secrets completely', async () => {
      const c = await create({ url: 'https://v.test', apiKey: 'short', pin: '1234' }, 'short')
      expect(c.maskedData).toEqual({ url: 'https://v.test', apiKey: '••••', pin: '••••', region: 'eu' })
      await t.call('DELETE', `/v1/connectors/${c.id}`)
    })

    it("refuses an unknown type and data that does not match the type's schema, listing each problem", async () => {
      const unknown = await t.call('POST', '/v1/connectors', { body: { type: 'nope', name: 'x', data: {} } })
      expect(unknown.status).toBe(400)
      expect(unknown.body.details[0]).toMatchObject({ path: '/type' })
      const invalid = await t.call('POST', '/v1/connectors', {
        body: { type: 'chatapp', name: 'x', data: { teamId: 7 } },
      })
      expect(invalid.status).toBe(400)
      const paths = invalid.body.details.map((d: { path: string }) => d.path)
      expect(paths).toContain('/data/teamId')
      expect(paths).toContain('/data/botToken')
      const missing = await t.call('POST', '/v1/connectors', { body: { type: 'chatapp', name: 'x' } })
      expect(missing.status).toBe(400)
      const mask = await t.call('POST', '/v1/connectors', {
        body: { type: 'chatapp', name: 'x', data: { teamId: 'T1', botToken: '••••abcd' } },
      })
      expect(mask.status).toBe(400)
      expect(mask.body.details).toEqual([{ path: '/data/botToken', message: 'is a mask; send the secret itself' }])
    })

    it('updates: data replaces, a secret left out or sent masked keeps its value, null removes, the type stays', async () => {
      const c = await create({ url: 'https://v.test', apiKey: API_KEY, pin: '98765' }, 'to-update')
      const renamed = await t.call('PUT', `/v1/connectors/${c.id}`, { body: { name: 'renamed' } })
      expect(renamed.body.data).toMatchObject({ name: 'renamed', maskedData: c.maskedData })
      const masked = await t.call('PUT', `/v1/connectors/${c.id}`, {
        body: { data: { ...c.maskedData, url: 'https://v2.test', pin: null } },
      })
      expect(masked.status).toBe(200)
      expect(masked.body.data.maskedData).toEqual({ url: 'https://v2.test', apiKey: '••••cdef', region: 'eu' })
      const opened = await t.system.connectors.resolve(t.orgId, { id: c.id }, 'vault')
      expect(opened.data).toEqual({ url: 'https://v2.test', apiKey: API_KEY, region: 'eu' })
      await t.call('PUT', `/v1/connectors/${c.id}`, {
        body: { data: { url: 'https://v3.test', apiKey: 'vk_new_key_00000000' } },
      })
      expect((await t.system.connectors.resolve(t.orgId, { id: c.id }, 'vault')).data.apiKey).toBe(
        'vk_new_key_00000000',
      )
      const typeChange = await t.call('PUT', `/v1/connectors/${c.id}`, { body: { type: 'chatapp' } })
      expect(typeChange.status).toBe(400)
      const invalid = await t.call('PUT', `/v1/connectors/${c.id}`, { body: { data: { apiKey: 'x' } } })
      expect(invalid.status).toBe(400)
      expect(invalid.body.details[0].path).toBe('/data/url')
      expect((await t.call('PUT', '/v1/connectors/con_missing', { body: { name: 'x' } })).status).toBe(404)
      await t.call('DELETE', `/v1/connectors/${c.id}`)
    })

    it('keeps organizations apart and checks permissions', async () => {
      const c = await create({ url: 'https://v.test', apiKey: API_KEY }, 'private')
      const other = await t.newOrganization(`other-${kind}`)
      expect((await t.call('GET', `/v1/connectors/${c.id}`, { key: other.key })).status).toBe(404)
      expect((await t.call('DELETE', `/v1/connectors/${c.id}`, { key: other.key })).status).toBe(404)
      expect((await t.call('GET', '/v1/connectors', { key: other.key })).body.data.items).toEqual([])
      const reader = (await t.call('POST', '/v1/api-keys', { body: { name: 'reader', scope: 'read' } })).body.data.key
      expect((await t.call('GET', `/v1/connectors/${c.id}`, { key: reader })).status).toBe(200)
      expect(
        (await t.call('POST', '/v1/connectors', { key: reader, body: { type: 'vault', name: 'x', data: {} } })).status,
      ).toBe(403)
      expect((await t.call('DELETE', `/v1/connectors/${c.id}`, { key: reader })).status).toBe(403)
      await t.call('DELETE', `/v1/connectors/${c.id}`)
    })

    it("gives a node its connector's data, and keeps the secret out of the run record, the journal and the logs", async () => {
      const c = await create({ url: receiver.url, apiKey: API_KEY })
      const before = receiver.requests.length
      const w = await createWorkflow(t, {
        definition: linear({ call: { type: 'vault-call', connector: { id: c.id }, payload: { path: '/data' } } }, [
          'call',
        ]),
      })
      const run = await runAndWait(t, w.id)
      expect(run.status).toBe('success')
      expect(receiver.requests[before].headers.authorization).toBe(`Bearer ${API_KEY}`)
      expect(run.nodes.call.result).toEqual({ status: 200, region: 'eu', echoed: '••••' })
      const failing = await createWorkflow(t, {
        definition: linear({ call: { type: 'vault-call', payload: { path: '/x', fail: true } } }, ['call']),
      })
      const failed = await runAndWait(t, failing.id)
      expect(failed.status).toBe('failure')
      expect(failed.nodes.call.error).toBe(`refused GET ${receiver.url}?key=••••`)
      for (const id of [run.id, failed.id]) {
        const stored = JSON.stringify([
          await t.system.store.all('SELECT * FROM events WHERE run_id = $1', [id]),
          await t.system.store.all('SELECT * FROM runs WHERE id = $1', [id]),
          (await t.call('GET', `/v1/runs/${id}`)).body,
        ])
        expect(stored).not.toContain(API_KEY)
        expect(stored).toContain('••••')
      }
      await t.call('DELETE', `/v1/connectors/${c.id}`)
    })

    it('fails a node whose connector is missing, of another type or ambiguous, with a clear error', async () => {
      const run = async (connector: Record<string, string> | undefined) => {
        const w = await createWorkflow(t, {
          definition: linear({ call: { type: 'vault-call', connector, payload: { path: '/' } } }, ['call']),
        })
        return (await runAndWait(t, w.id)).nodes.call.error
      }
      expect(await run(undefined)).toContain('this node needs a vault connector: create one (POST /v1/connectors)')
      expect(await run({ id: 'con_nope' })).toBe('connector con_nope does not exist in this organization')
      const chat = await create({ teamId: 'T9', botToken: 'xoxb-zzzzzzzzzzzz' }, 'chat', 'chatapp')
      expect(await run({ id: chat.id })).toBe(
        `connector ${chat.id} is a chatapp connector; this node needs a vault connector`,
      )
      expect(await run({ type: 'chatapp' })).toContain('needs a vault connector')
      const one = await create({ url: receiver.url, apiKey: API_KEY }, 'one')
      const two = await create({ url: receiver.url, apiKey: API_KEY }, 'two')
      expect(await run(undefined)).toBe(
        "the organization has several vault connectors: name one in the node's connector.id",
      )
      for (const id of [chat.id, one.id, two.id]) await t.call('DELETE', `/v1/connectors/${id}`)
    })

    it('does not retry a node whose connector is missing: retrying cannot create it', async () => {
      const w = await createWorkflow(t, {
        definition: linear(
          { call: { type: 'vault-call', payload: { path: '/' }, retry: { maxAttempts: 3, backoffMs: 10 } } },
          ['call'],
        ),
      })
      const run = await runAndWait(t, w.id)
      expect(run.status).toBe('failure')
      expect(run.nodes.call).toMatchObject({ status: 'failure', attempts: 1 })
      expect(run.nodes.call.error).toContain('this node needs a vault connector')
    })

    it('refuses to publish a workflow whose connectors cannot be found', async () => {
      const missing = await createWorkflow(t, {
        definition: linear({ call: { type: 'vault-call', connector: { id: 'con_nope' }, payload: { path: '/' } } }, [
          'call',
        ]),
      })
      const r = await t.call('POST', `/v1/workflows/${missing.id}/publish`)
      expect(r.status).toBe(400)
      expect(r.body.details).toEqual([
        {
          path: '/definition/nodes/call/connector/id',
          message: 'connector con_nope does not exist in this organization',
        },
      ])
      const none = await createWorkflow(t, {
        definition: linear({ call: { type: 'vault-call', payload: { path: '/' } } }, ['call']),
      })
      const refused = await t.call('POST', `/v1/workflows/${none.id}/publish`)
      expect(refused.body.details[0]).toMatchObject({ path: '/definition/nodes/call/connector' })
      const c = await create({ url: receiver.url, apiKey: API_KEY }, 'for-publish')
      expect((await t.call('POST', `/v1/workflows/${none.id}/publish`)).status).toBe(200)
      await t.call('DELETE', `/v1/workflows/${none.id}`)
      await t.call('DELETE', `/v1/connectors/${c.id}`)
    })

    it('refuses to delete a connector a live workflow names, until the workflow is archived', async () => {
      const c = await create({ url: receiver.url, apiKey: API_KEY }, 'in-use')
      const w = await createLive(t, {
        definition: linear({ call: { type: 'vault-call', connector: { id: c.id }, payload: { path: '/' } } }, ['call']),
      })
      const refused = await t.call('DELETE', `/v1/connectors/${c.id}`)
      expect(refused.status).toBe(409)
      expect(refused.body.details).toEqual([{ path: '/id', message: `used by workflow ${w.id}`, workflowId: w.id }])
      await t.call('DELETE', `/v1/workflows/${w.id}`)
      const deleted = await t.call('DELETE', `/v1/connectors/${c.id}`)
      expect(deleted.status).toBe(200)
      expect(deleted.body.data.id).toBe(c.id)
      expect((await t.call('GET', `/v1/connectors/${c.id}`)).status).toBe(404)
    })
  })
}
