/** Flow control's field and its rate limit: a sliding window per key, refused with 429 and Retry-After. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createSkewedClock } from '../helpers/clock.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, createWorkflow, linear } from '../helpers/workflows.ts'

const echo = linear({ say: { type: 'log', payload: { message: 'got {{$trigger.body.n}}' } } }, ['say'])
const perCustomer = { key: '{{root.result.body.customerId}}', limit: 3, periodMs: 60_000 }

for (const kind of storeKinds()) {
  describe(`flow control: rate limit (${kind})`, () => {
    const clock = createSkewedClock()
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind, {}, { clock })
    })
    afterAll(() => t.close())

    const hook = (secret: string, body: unknown) => t.call('POST', `/v1/webhooks/${secret}`, { key: null, body })

    it('keeps flowControl with the version and refuses templates that cannot work', async () => {
      const w = await createWorkflow(t, { definition: echo, flowControl: { rateLimit: perCustomer } })
      expect(w.flowControl).toEqual({ rateLimit: perCustomer })
      const plain = await createWorkflow(t, { definition: echo })
      expect(plain.flowControl).toBeNull()
      const broken = await t.call('PUT', `/v1/workflows/${w.id}`, {
        body: { flowControl: { concurrency: { key: '{{root.result.body.id', limit: 1, onLimit: 'skip' } } },
      })
      expect(broken.status).toBe(400)
      expect(broken.body.details).toEqual([
        { path: '/flowControl/concurrency/key', message: 'each {{ must be closed by }}' },
      ])
      const outOfRange = await t.call('PUT', `/v1/workflows/${w.id}`, {
        body: { flowControl: { rateLimit: { limit: 0, periodMs: 1000 } } },
      })
      expect(outOfRange.status).toBe(400)
    })

    it('refuses the webhook past the limit with 429, Retry-After and reason rate_limited, per key', async () => {
      const w = await createLive(t, { definition: echo, flowControl: { rateLimit: perCustomer } })
      for (let n = 0; n < 3; n++) {
        const r = await hook(w.triggerSecret, { customerId: 'a', n })
        expect(r.body.data.action).toBe('triggered')
      }
      const refused = await hook(w.triggerSecret, { customerId: 'a', n: 4 })
      expect(refused.status).toBe(429)
      expect(refused.body.reason).toBe('rate_limited')
      const retryAfter = Number(refused.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(retryAfter).toBeLessThanOrEqual(60)
      // Another key has a window of its own.
      expect((await hook(w.triggerSecret, { customerId: 'b' })).body.data.action).toBe('triggered')
      // Once the window slid past the first runs, the key admits again.
      clock.skip(60_001)
      expect((await hook(w.triggerSecret, { customerId: 'a' })).body.data.action).toBe('triggered')
      const runs = (await t.call('GET', `/v1/workflows/${w.id}/runs`)).body.data.items
      expect(runs).toHaveLength(5)
    })

    it('holds API runs to the same window; editor test runs are not counted', async () => {
      const w = await createLive(t, { definition: echo, flowControl: { rateLimit: { limit: 1, periodMs: 60_000 } } })
      expect((await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: {} } })).status).toBe(200)
      const refused = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: {} } })
      expect(refused.status).toBe(429)
      expect(refused.body.reason).toBe('rate_limited')
      expect(refused.headers.get('retry-after')).not.toBeNull()
      expect((await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { test: true } })).status).toBe(200)
    })
  })
}
