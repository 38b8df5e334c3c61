/** Issue finding 6: bodies of the wrong type are a 400 with details, never accepted as {}. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear } from '../helpers/workflows.ts'

for (const kind of storeKinds()) {
  describe(`wrong body types (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t?.close())

    it('answers 400 with details, and changes nothing', async () => {
      const w = await createLive(t, {
        definition: linear({ say: { type: 'log', payload: { message: 'hi' } } }, ['say']),
      })
      const sa = (await t.call('POST', '/v1/service-accounts', { body: { name: 's', permissions: ['run:read'] } })).body
        .data
      const before = (await t.call('GET', `/v1/workflows/${w.id}`)).body.data
      const cases: Array<[string, string, string, string?]> = [
        ['PUT', `/v1/workflows/${w.id}`, '{"publicWidgetConfig":[1]}'],
        ['PUT', `/v1/workflows/${w.id}`, '{"x402Config":[1,2]}'],
        ['PUT', `/v1/workflows/${w.id}`, '{"fundAutoSwapConfig":"x"}'],
        ['PUT', `/v1/workflows/${w.id}`, '123'],
        ['PATCH', `/v1/workflows/${w.id}/ui-metadata`, '123'],
        ['PATCH', `/v1/workflows/${w.id}/ui-metadata`, '[1]'],
        ['PATCH', `/v1/service-accounts/${sa.id}`, '123'],
        ['POST', `/v1/workflows/${w.id}/run`, '{"payload":[1,2]}'],
        ['POST', `/v1/workflows/${w.id}/run`, '{"payload":"s"}'],
        ['POST', `/v1/workflows/${w.id}/run`, '{"payload":5}'],
        ['POST', `/v1/workflows/${w.id}/run`, '<a/>', 'application/xml'],
        ['POST', `/v1/workflows/${w.id}/run`, 'a=1', 'application/x-www-form-urlencoded'],
        ['POST', `/v1/organizations/${t.orgId}/webhook-secret/regenerate`, '[]'],
      ]
      for (const [method, path, raw, type] of cases) {
        const r = await t.call(method, path, { rawBody: raw, headers: { 'content-type': type ?? 'application/json' } })
        expect({ method, path, raw, status: r.status }).toEqual({ method, path, raw, status: 400 })
        expect(r.body.details.length).toBeGreaterThan(0)
      }
      const after = (await t.call('GET', `/v1/workflows/${w.id}`)).body.data
      expect(after.updatedAt).toBe(before.updatedAt)
      const counts = (await t.call('GET', `/v1/runs/status-counts?workflowId=${w.id}`)).body.data
      expect(counts.total).toBe(0)
    })

    it('takes only a JSON object (or a form) on a workflow webhook', async () => {
      const w = await createLive(t, {
        definition: linear({ say: { type: 'log', payload: { message: 'hi' } } }, ['say']),
      })
      for (const raw of ['123', '"s"', '[1]', 'null']) {
        const r = await t.call('POST', `/v1/webhooks/${w.triggerSecret}`, {
          key: null,
          rawBody: raw,
          headers: { 'content-type': 'application/json' },
        })
        expect({ raw, status: r.status }).toEqual({ raw, status: 400 })
      }
      expect(
        (
          await t.call('POST', `/v1/webhooks/${w.triggerSecret}`, {
            key: null,
            rawBody: 'a=1',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          })
        ).status,
      ).toBe(200)
      expect((await t.call('POST', `/v1/webhooks/${w.triggerSecret}`, { key: null })).status).toBe(200)
    })
  })
}
