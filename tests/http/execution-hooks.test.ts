/** The execution-webhook endpoints: managing endpoints, validation, permissions and isolation. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

const PUBLIC_URL = 'https://93.184.215.14/hooks/automaton'

for (const kind of storeKinds()) {
  describe(`execution webhooks API (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t.close())

    const create = (body: Record<string, unknown>, key?: string) =>
      t.call('POST', '/v1/execution-webhooks', { body: { name: 'orders', ...body }, key })

    it('creates an endpoint and shows its whsec_ secret once, sealed at rest', async () => {
      const r = await create({
        url: PUBLIC_URL,
        description: 'order events',
        subscribedEventTypes: ['run.failed', 'run.succeeded', 'run.failed'],
      })
      expect(r.status).toBe(200)
      const { endpoint, signingSecret } = r.body.data
      expect(signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
      expect(endpoint.id).toMatch(/^hook_/)
      expect(endpoint).toMatchObject({
        organizationId: t.orgId,
        name: 'orders',
        description: 'order events',
        url: PUBLIC_URL,
        status: 'enabled',
        subscribedEventTypes: ['run.failed', 'run.succeeded'],
        maxRetries: 8,
        disabledReason: '',
        disabledAt: '',
        previousSecretExpiresAt: '',
      })
      const got = await t.call('GET', `/v1/execution-webhooks/${endpoint.id}`)
      expect(got.body.data).toEqual(endpoint)
      expect(JSON.stringify(got.body)).not.toContain(signingSecret.slice(6))
      const rows = await t.system.store.all('SELECT * FROM hook_endpoints WHERE id = $1', [endpoint.id])
      expect(JSON.stringify(rows)).not.toContain(signingSecret.slice(6))
      const list = await t.call('GET', '/v1/execution-webhooks')
      expect(list.body.data.items.map((e: { id: string }) => e.id)).toContain(endpoint.id)
      expect(JSON.stringify(list.body)).not.toContain(signingSecret.slice(6))
    })

    it('disables and enables an endpoint, saying who disabled it', async () => {
      const { endpoint } = (await create({ url: PUBLIC_URL })).body.data
      const off = await t.call('POST', `/v1/execution-webhooks/${endpoint.id}/disable`)
      expect(off.status).toBe(200)
      expect(off.body.data).toMatchObject({ status: 'disabled' })
      expect(off.body.data.disabledReason).toMatch(/^disabled by /)
      expect(off.body.data.disabledAt).toMatch(/^\d{4}-/)
      const on = await t.call('POST', `/v1/execution-webhooks/${endpoint.id}/enable`)
      expect(on.body.data).toMatchObject({ status: 'enabled', disabledReason: '', disabledAt: '' })
    })

    it('regenerates the secret: a new one, shown once', async () => {
      const created = (await create({ url: PUBLIC_URL })).body.data
      const r = await t.call('POST', `/v1/execution-webhooks/${created.endpoint.id}/regenerate-secret`)
      expect(r.status).toBe(200)
      expect(r.body.data.signingSecret).toMatch(/^whsec_/)
      expect(r.body.data.signingSecret).not.toBe(created.signingSecret)
      expect(Date.parse(r.body.data.endpoint.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(86_000_000)
      const now = await t.call('POST', `/v1/execution-webhooks/${created.endpoint.id}/regenerate-secret`, {
        body: { previousSecretTtlSeconds: 0 },
      })
      expect(now.body.data.endpoint.previousSecretExpiresAt).toBe('')
    })

    it('changes an endpoint with PATCH, checking a new URL and event types as at creation', async () => {
      const { endpoint } = (await create({ url: PUBLIC_URL, subscribedEventTypes: ['run.failed'] })).body.data
      const r = await t.call('PATCH', `/v1/execution-webhooks/${endpoint.id}`, {
        body: { name: 'renamed', url: `${PUBLIC_URL}/v2`, subscribedEventTypes: [], maxRetries: 3 },
      })
      expect(r.status).toBe(200)
      expect(r.body.data).toMatchObject({
        id: endpoint.id,
        name: 'renamed',
        url: `${PUBLIC_URL}/v2`,
        subscribedEventTypes: [],
        maxRetries: 3,
        description: '',
      })
      expect((await t.call('GET', `/v1/execution-webhooks/${endpoint.id}`)).body.data).toEqual(r.body.data)

      const privateUrl = await t.call('PATCH', `/v1/execution-webhooks/${endpoint.id}`, {
        body: { url: 'https://10.0.0.1/hook' },
      })
      expect(privateUrl.status).toBe(400)
      expect(privateUrl.body.details[0].path).toBe('/url')
      const types = await t.call('PATCH', `/v1/execution-webhooks/${endpoint.id}`, {
        body: { subscribedEventTypes: ['nope'] },
      })
      expect(types.status).toBe(400)
      expect(types.body.details[0].path).toBe('/subscribedEventTypes/0')
      expect((await t.call('PATCH', `/v1/execution-webhooks/${endpoint.id}`, { body: {} })).status).toBe(400)
      expect((await t.call('GET', `/v1/execution-webhooks/${endpoint.id}`)).body.data.url).toBe(`${PUBLIC_URL}/v2`)
      expect((await t.call('PATCH', '/v1/execution-webhooks/hook_missing', { body: { name: 'x' } })).status).toBe(404)
    })

    it('deletes an endpoint: answered once, then 404, and gone from the list', async () => {
      const { endpoint } = (await create({ url: PUBLIC_URL })).body.data
      const r = await t.call('DELETE', `/v1/execution-webhooks/${endpoint.id}`)
      expect(r.status).toBe(200)
      expect(r.body.data.id).toBe(endpoint.id)
      expect((await t.call('GET', `/v1/execution-webhooks/${endpoint.id}`)).status).toBe(404)
      expect((await t.call('DELETE', `/v1/execution-webhooks/${endpoint.id}`)).status).toBe(404)
      const list = await t.call('GET', '/v1/execution-webhooks')
      expect(list.body.data.items.map((e: { id: string }) => e.id)).not.toContain(endpoint.id)
    })

    it('answers 400 for bad bodies, naming each field', async () => {
      const bad = await t.call('POST', '/v1/execution-webhooks', {
        body: { url: 7, maxRetries: 99, subscribedEventTypes: 'all' },
      })
      expect(bad.status).toBe(400)
      expect(bad.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
        '/maxRetries',
        '/name',
        '/subscribedEventTypes',
        '/url',
      ])
      const types = await create({
        url: PUBLIC_URL,
        subscribedEventTypes: ['run.succeeded', 'workflow.paused', 'nope'],
      })
      expect(types.status).toBe(400)
      expect(types.body.details.map((d: { path: string }) => d.path)).toEqual([
        '/subscribedEventTypes/1',
        '/subscribedEventTypes/2',
      ])
      expect(types.body.details[0].message).toContain('run.started')
      for (const url of [
        'not a url',
        'ftp://93.184.215.14/x',
        'http://93.184.215.14/plain',
        'https://user:pw@93.184.215.14/x',
      ]) {
        const r = await create({ url })
        expect(r.status).toBe(400)
        expect(r.body.details[0].path).toBe('/url')
      }
      expect((await create({ url: 'http://93.184.215.14/plain' })).body.details[0].message).toContain('https')
    })

    it('refuses private, loopback, link-local and metadata targets at creation', async () => {
      for (const url of [
        'https://127.0.0.1/hook',
        'https://10.0.0.1/hook',
        'https://169.254.169.254/latest/meta-data',
        'https://[::1]/hook',
        'https://localhost/hook',
        'https://0x7f.1/hook',
        'https://[::ffff:10.0.0.1]/hook',
      ]) {
        const r = await create({ url })
        expect(r.status).toBe(400)
        expect(r.body.details).toHaveLength(1)
        expect(r.body.details[0]).toMatchObject({ path: '/url' })
        expect(r.body.details[0].message).toMatch(/^is refused: /)
      }
      expect(
        (await t.call('GET', '/v1/execution-webhooks?limit=100')).body.data.items.some(
          (e: { url: string }) => !e.url.startsWith(PUBLIC_URL),
        ),
      ).toBe(false)
    })

    it('answers 403 to keys without execution:webhook', async () => {
      const sa = (
        await t.call('POST', '/v1/service-accounts', {
          body: { name: 'reader', permissions: ['run:read', 'execution:read'] },
        })
      ).body.data
      const key = (await t.call('POST', '/v1/api-keys', { body: { name: 'reader', serviceAccountId: sa.id } })).body
        .data.key
      const readOnly = (await t.call('POST', '/v1/api-keys', { body: { name: 'ro', scope: 'read' } })).body.data.key
      const { endpoint } = (await create({ url: PUBLIC_URL })).body.data
      for (const k of [key, readOnly]) {
        expect((await t.call('GET', '/v1/execution-webhooks', { key: k })).status).toBe(403)
        expect((await create({ url: PUBLIC_URL }, k)).status).toBe(403)
        expect((await t.call('POST', `/v1/execution-webhooks/${endpoint.id}/disable`, { key: k })).status).toBe(403)
        expect(
          (await t.call('PATCH', `/v1/execution-webhooks/${endpoint.id}`, { key: k, body: { name: 'x' } })).status,
        ).toBe(403)
        expect((await t.call('DELETE', `/v1/execution-webhooks/${endpoint.id}`, { key: k })).status).toBe(403)
        expect((await t.call('GET', '/v1/execution-webhooks/deliveries', { key: k })).status).toBe(403)
      }
      expect((await t.call('GET', '/v1/execution-webhooks', { key: null })).status).toBe(401)
    })

    it('keeps organizations apart: another organization sees 404 and an empty list', async () => {
      const { endpoint } = (await create({ url: PUBLIC_URL })).body.data
      const other = await t.newOrganization(`other-${crypto.randomUUID().slice(0, 8)}`)
      for (const [method, path] of [
        ['GET', ''],
        ['POST', '/enable'],
        ['POST', '/disable'],
        ['POST', '/regenerate-secret'],
        ['PATCH', ''],
        ['DELETE', ''],
      ] as const) {
        const r = await t.call(method, `/v1/execution-webhooks/${endpoint.id}${path}`, {
          key: other.key,
          body: method === 'PATCH' ? { name: 'theirs' } : undefined,
        })
        expect(r.status).toBe(404)
      }
      expect((await t.call('GET', `/v1/execution-webhooks/${endpoint.id}`)).body.data.name).toBe('orders')
      expect((await t.call('GET', '/v1/execution-webhooks', { key: other.key })).body.data.items).toEqual([])
      expect(
        (await t.call('GET', `/v1/execution-webhooks/deliveries?endpointId=${endpoint.id}`, { key: other.key })).body
          .data.items,
      ).toEqual([])
    })

    it('answers 404 for unknown deliveries and checks the log filters', async () => {
      expect((await t.call('GET', '/v1/execution-webhooks/deliveries/dlv_nope')).status).toBe(404)
      expect((await t.call('POST', '/v1/execution-webhooks/deliveries/dlv_nope/retry')).status).toBe(404)
      expect((await t.call('POST', '/v1/execution-webhooks/deliveries/dlv_nope/replay')).status).toBe(404)
      expect((await t.call('GET', '/v1/execution-webhooks/nope')).status).toBe(404)
      const r = await t.call('GET', '/v1/execution-webhooks/deliveries?status=lost')
      expect(r.status).toBe(400)
      expect((await t.call('GET', '/v1/execution-webhooks/deliveries?status=failure&limit=5')).body.data).toMatchObject(
        { items: [], limit: 5, offset: 0, hasMore: false },
      )
    })

    it('documents the endpoints in the OpenAPI document', async () => {
      const doc = (await t.call('GET', '/v1/openapi.json', { key: null })).body
      for (const path of [
        '/v1/execution-webhooks',
        '/v1/execution-webhooks/{id}',
        '/v1/execution-webhooks/{id}/regenerate-secret',
        '/v1/execution-webhooks/deliveries/{id}/replay',
      ]) {
        expect(doc.paths[path]).toBeDefined()
      }
      expect(doc.paths['/v1/execution-webhooks'].post['x-permission']).toBe('execution:webhook')
    })
  })
}
