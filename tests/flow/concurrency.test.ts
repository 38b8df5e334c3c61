/** Flow control's concurrency limit with onLimit `skip`: at most N runs per key in execution, the rest skipped. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { hold } from '../helpers/flow.ts'
import { createLive, createWorkflow, waitForRun } from '../helpers/workflows.ts'

const perCustomer = { key: '{{root.result.body.customerId}}', limit: 2, onLimit: 'skip' }

for (const kind of storeKinds()) {
  describe(`flow control: concurrency (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t.close())

    const hook = (secret: string, body: unknown) => t.call('POST', `/v1/webhooks/${secret}`, { key: null, body })

    it('skips a key past its limit with 200 skipped/concurrency_limit, and admits again once a run ends', async () => {
      const w = await createLive(t, { definition: hold, flowControl: { concurrency: perCustomer } })
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, n) => hook(w.triggerSecret, { customerId: 'a', n })),
      )
      const started = answers.filter((r) => r.body.data.action === 'triggered')
      expect(started).toHaveLength(2)
      for (const r of answers.filter((x) => x.body.data.action !== 'triggered')) {
        expect(r.status).toBe(200)
        expect(r.body.data).toMatchObject({ action: 'skipped', reason: 'concurrency_limit', runIds: [] })
      }
      // Another key is counted apart.
      expect((await hook(w.triggerSecret, { customerId: 'b' })).body.data.action).toBe('triggered')

      const first = started[0].body.data.runIds[0]
      await waitForRun(t, first, (r) => r.status === 'waiting')
      expect((await t.call('POST', `/v1/runs/${first}/cancel`)).status).toBe(200)
      expect((await hook(w.triggerSecret, { customerId: 'a' })).body.data.action).toBe('triggered')
      expect((await hook(w.triggerSecret, { customerId: 'a' })).body.data.action).toBe('skipped')
    })

    it('refuses a priority that is no number, and a skipping concurrency limit behind a throttle', async () => {
      const prioritized = await t.call('POST', '/v1/workflows', {
        body: { definition: hold, flowControl: { priority: 'urgent' } },
      })
      expect(prioritized.status).toBe(400)
      expect(prioritized.body.details).toEqual([
        { path: '/flowControl/priority', message: 'must be an integer or a {{ }} template giving one' },
      ])
      const w = await createWorkflow(t, { definition: hold })
      const both = await t.call('PUT', `/v1/workflows/${w.id}`, {
        body: { flowControl: { concurrency: { limit: 1, onLimit: 'skip' }, throttle: { limit: 1, periodMs: 1000 } } },
      })
      expect(both.status).toBe(400)
      expect(both.body.details).toEqual([
        {
          path: '/flowControl/concurrency/onLimit',
          message:
            'must be queue with throttle or debounce (a held run reaches the limit after its caller was answered)',
        },
      ])
      // Queued, the same pair is kept.
      const queued = await t.call('PUT', `/v1/workflows/${w.id}`, {
        body: { flowControl: { concurrency: { limit: 1 }, throttle: { limit: 1, periodMs: 1000 } } },
      })
      expect(queued.status).toBe(200)
    })
  })
}
