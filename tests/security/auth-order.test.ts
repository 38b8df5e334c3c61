/**
 * Issue findings 1 (severe): a caller without a key costs nothing, whatever it sends; JSON nested
 * deeper than the bound is a 400 naming it, for every body (webhooks and run payloads included),
 * and never blocks the event loop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { MAX_JSON_DEPTH } from '../../core/http/middleware/body.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear } from '../helpers/workflows.ts'

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

for (const kind of storeKinds()) {
  describe(`authentication comes first, nesting is bounded (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t?.close())

    const writes = [
      ['POST', '/v1/workflows'],
      ['POST', '/v1/connectors'],
      ['POST', '/v1/api-keys'],
      ['POST', '/v1/service-accounts'],
      ['POST', '/v1/members'],
      ['PUT', '/v1/workflows/wf_x'],
    ]

    it('answers 401 to a body of 100,000 brackets without a key', async () => {
      for (const [method, path] of writes) {
        const r = await t.call(method, path, {
          key: null,
          rawBody: nested(100_000),
          headers: { 'content-type': 'application/json' },
        })
        expect(r.status).toBe(401)
        expect(r.body).toMatchObject({ code: 401, requestId: expect.any(String) })
      }
    })

    it('answers 401 without a key before reading the body: one that never ends costs nothing', async () => {
      for (const [method, path] of writes) {
        // Opened and never closed: a server that read it would never answer.
        const body = new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode('[[[[')) })
        const init = { method, body, headers: { 'content-type': 'application/json' }, duplex: 'half' }
        const response = await t.system.app.handle(new Request(`http://localhost${path}`, init as RequestInit))
        expect(response.status).toBe(401)
        expect(await response.json()).toMatchObject({ code: 401, requestId: expect.any(String) })
      }
    })

    it('answers 401 before validating a query, and 403 before validating a body', async () => {
      const r = await t.call('GET', '/v1/metrics/failure-rate?from=nope', { key: null })
      expect(r.status).toBe(401)
      const reader = await t.call('POST', '/v1/api-keys', { body: { name: 'r', scope: 'read' } })
      expect(reader.status).toBe(200)
      const forbidden = await t.call('POST', '/v1/workflows', { key: reader.body.data.key, body: { name: 123 } })
      expect(forbidden.status).toBe(403)
    })

    it('refuses JSON nested deeper than the bound with a 400 naming it, with a key, for webhooks and run payloads too', async () => {
      const deep = `{"name": ${nested(10_000)}}`
      const created = await t.call('POST', '/v1/workflows', {
        rawBody: deep,
        headers: { 'content-type': 'application/json' },
      })
      expect(created.status).toBe(400)
      expect(created.body.message).toContain(String(MAX_JSON_DEPTH))
      const w = await createLive(t, {
        definition: linear({ say: { type: 'log', payload: { message: 'hi' } } }, ['say']),
      })
      const payload = `{"payload": ${nested(50_000)}}`
      expect(
        (
          await t.call('POST', `/v1/workflows/${w.id}/run`, {
            rawBody: payload,
            headers: { 'content-type': 'application/json' },
          })
        ).status,
      ).toBe(400)
      const hook = await t.call('POST', `/v1/webhooks/${w.triggerSecret}`, {
        key: null,
        rawBody: `{"a": ${nested(50_000)}}`,
        headers: { 'content-type': 'application/json' },
      })
      expect(hook.status).toBe(400)
      expect(hook.body.message).toContain('deeper than')
      // At the bound it is accepted.
      const fine = await t.call('POST', `/v1/webhooks/${w.triggerSecret}`, {
        key: null,
        rawBody: `{"a": ${nested(MAX_JSON_DEPTH - 1)}}`,
        headers: { 'content-type': 'application/json' },
      })
      expect(fine.status).toBe(200)
      // Brackets inside strings are not nesting.
      const quoted = await t.call('POST', `/v1/webhooks/${w.triggerSecret}`, {
        key: null,
        body: { text: '['.repeat(1000) + '\\"{' },
      })
      expect(quoted.status).toBe(200)
    })
  })
}
