/** Issue finding 7: credentials in webhook headers and in request paths are not kept or logged. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { redactPath } from '../../core/security/redact.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'

describe('redacted request paths', () => {
  it('hides a workflow webhook secret and credential query parameters', () => {
    expect(redactPath('/v1/webhooks/whk_abcdef0123456789')).toBe('/v1/webhooks/[redacted]')
    expect(redactPath('/v1/orgs/org_1/integrations/eventsource?secret=whsec_x&kind=a')).toBe(
      '/v1/orgs/org_1/integrations/eventsource?secret=[redacted]&kind=a',
    )
    expect(redactPath('/v1/runs/run_1?token=abc')).toBe('/v1/runs/run_1?token=[redacted]')
    expect(redactPath('/v1/workflows/wf_1')).toBe('/v1/workflows/wf_1')
  })
})

for (const kind of storeKinds()) {
  describe(`credential headers of a webhook (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t?.close())

    it('keeps ordinary headers and hides credential-like ones from what a run keeps', async () => {
      const w = await createLive(t, {
        definition: linear({ say: { type: 'log', payload: { message: 'hi' } } }, ['say']),
      })
      const r = await t.call('POST', `/v1/webhooks/${w.triggerSecret}`, {
        key: null,
        body: { a: 1 },
        headers: {
          'x-auth-token': 'tok_live_123',
          'x-signature': 'sig',
          'x-api-key': 'k',
          cookie: 'session=abc',
          'x-order': '42',
        },
      })
      expect(r.status).toBe(200)
      const run = await waitForRun(t, r.body.data.runIds[0])
      const headers = run.nodes.root.result.headers
      expect(headers['x-order']).toBe('42')
      expect(headers['x-auth-token']).toBe('[redacted]')
      expect(headers['x-signature']).toBe('[redacted]')
      expect(headers.cookie).toBeUndefined()
      expect(JSON.stringify(run)).not.toContain('tok_live_123')
    })
  })
}
