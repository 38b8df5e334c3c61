import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

for (const kind of storeKinds()) {
  describe(`HTTP conventions (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind, { AUTOMATON_MAX_BODY_BYTES: '4096' })
    })
    afterAll(() => t.close())

    it('wraps success in the envelope with a request id that matches the header', async () => {
      const r = await t.call('GET', '/v1/me')
      expect(r.status).toBe(200)
      expect(Object.keys(r.body).sort()).toEqual(['code', 'data', 'message', 'requestId'])
      expect(r.body.code).toBe(200)
      expect(r.body.message).toBe('success')
      expect(r.body.requestId).toMatch(/^req_[0-9A-Z]{26}$/)
      expect(r.headers.get('x-request-id')).toBe(r.body.requestId)
    })

    it('echoes a client-sent X-Request-Id in the header and the error body', async () => {
      const r = await t.call('GET', '/v1/nothing-here', { headers: { 'x-request-id': 'trace-42' } })
      expect(r.headers.get('x-request-id')).toBe('trace-42')
      expect(r.body.requestId).toBe('trace-42')
    })

    it('answers unknown routes with a JSON 404 in the error body shape', async () => {
      const r = await t.call('DELETE', '/v1/unknown/thing')
      expect(r.status).toBe(404)
      expect(r.headers.get('content-type')).toContain('application/json')
      expect(Object.keys(r.body).sort()).toEqual(['code', 'details', 'message', 'requestId'])
      expect(r.body.code).toBe(404)
      expect(r.body.details).toEqual([])
    })

    it('answers every validation failure with 400 and one detail per problem', async () => {
      const r = await t.call('POST', '/v1/service-accounts', {
        body: { name: 7, permissions: 'all', description: 'x'.repeat(600) },
      })
      expect(r.status).toBe(400)
      expect(r.body.code).toBe(400)
      const paths = r.body.details.map((d: { path: string }) => d.path).sort()
      expect(paths).toEqual(['/description', '/name', '/permissions'])
      for (const d of r.body.details) expect(typeof d.message).toBe('string')
    })

    it('explains out-of-range query numbers', async () => {
      const r = await t.call('GET', '/v1/api-keys?limit=500')
      expect(r.status).toBe(400)
      expect(r.body.details).toEqual([{ path: '/limit', in: 'query', message: 'must be an integer between 1 and 100' }])
      const r2 = await t.call('GET', '/v1/api-keys?offset=-1')
      expect(r2.status).toBe(400)
      expect(r2.body.details[0].path).toBe('/offset')
    })

    it('answers malformed JSON with 400', async () => {
      const r = await t.call('POST', '/v1/service-accounts', {
        rawBody: '{"name": ',
        headers: { 'content-type': 'application/json' },
      })
      expect(r.status).toBe(400)
      expect(r.body.message).toContain('not valid JSON')
    })

    it('accepts JSON that curl labels as a form', async () => {
      const r = await t.call('POST', '/v1/service-accounts', {
        rawBody: JSON.stringify({ name: 'from-curl', permissions: ['org:read'] }),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
      expect(r.status).toBe(200)
      expect(r.body.data.name).toBe('from-curl')
    })

    it('answers 413 past the body limit, with or without a Content-Length', async () => {
      const big = JSON.stringify({ name: 'x', permissions: [], description: 'y'.repeat(5000) })
      const r = await t.call('POST', '/v1/service-accounts', {
        rawBody: big,
        headers: { 'content-type': 'application/json' },
      })
      expect(r.status).toBe(413)
      expect(r.body.code).toBe(413)
      const stream = new ReadableStream({
        start(c) {
          for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode('a'.repeat(1000)))
          c.close()
        },
      })
      const res = await t.system.app.handle(
        new Request('http://localhost/v1/service-accounts', {
          method: 'POST',
          body: stream,
          headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
        }),
      )
      expect(res.status).toBe(413)
    })

    it('serves /healthz and /readyz without a key', async () => {
      const h = await t.call('GET', '/healthz', { key: null })
      expect(h.status).toBe(200)
      expect(h.body.status).toBe('ok')
      const r = await t.call('GET', '/readyz', { key: null })
      expect(r.status).toBe(200)
      expect(r.body).toEqual({
        status: 'ready',
        checks: { store: 'ok', bus: 'ok' },
        backlog: { total: 0, max: 100000, perOrganizationMax: 50000, drainPerSecond: expect.any(Number) },
      })
    })

    it('describes itself in OpenAPI generated from the route schemas, and renders it at /docs', async () => {
      const r = await t.call('GET', '/v1/openapi.json', { key: null })
      expect(r.status).toBe(200)
      expect(r.body.openapi).toBe('3.1.0')
      const create = r.body.paths['/v1/api-keys'].post
      expect(create['x-permission']).toBe('apikey:create')
      expect(create.requestBody.content['application/json'].schema.required).toContain('name')
      expect(create.responses['200'].content['application/json'].schema.properties.data.properties.key.type).toBe(
        'string',
      )
      const getSa = r.body.paths['/v1/service-accounts/{id}'].get
      expect(getSa.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true })
      const list = r.body.paths['/v1/api-keys'].get
      const limit = list.parameters.find((p: { name: string }) => p.name === 'limit')
      expect(limit.schema).toMatchObject({ type: 'integer', maximum: 100, default: 20 })
      const docs = await t.system.app.handle(new Request('http://localhost/docs'))
      expect(docs.headers.get('content-type')).toContain('text/html')
      const html = await docs.text()
      expect(html).toContain('/v1/openapi.json')
      expect(html).not.toContain('https://')
      // The reference reads in the order a newcomer needs: workflows and runs first.
      expect(r.body.tags.slice(0, 2)).toEqual([{ name: 'workflows' }, { name: 'runs' }])
      const icon = await t.system.app.handle(new Request('http://localhost/favicon.ico'))
      expect(icon.status).toBe(200)
      expect(icon.headers.get('content-type')).toBe('image/x-icon')
    })

    it('never answers 500 for a wrong content type or an empty body', async () => {
      const empty = await t.call('POST', '/v1/service-accounts', { rawBody: '' })
      expect(empty.status).toBe(400)
      const text = await t.call('POST', '/v1/service-accounts', {
        rawBody: 'hello',
        headers: { 'content-type': 'text/plain' },
      })
      expect(text.status).toBe(400)
    })
  })
}
