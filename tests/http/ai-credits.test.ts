/** The AI credit gate over HTTP: preflight without the envelope, and the credit ledger, per organization. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { aiCredits } from '../../core/store/ai-credits.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

for (const kind of storeKinds()) {
  describe(`AI credits over HTTP (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t.close())

    it('preflight is { allowed: false } without the envelope at zero, true after a grant, false again once spent', async () => {
      const before = await t.call('GET', '/v1/ai/workflow/chat/preflight')
      expect(before.status).toBe(200)
      expect(before.body).toEqual({ allowed: false })
      await t.system.store.write((tx) =>
        aiCredits.grant(tx, { id: 'acr_http_1', organizationId: t.orgId, amount: 2, at: Date.now() }),
      )
      expect((await t.call('GET', '/v1/ai/workflow/chat/preflight')).body).toEqual({ allowed: true })
      await t.system.store.write((tx) =>
        aiCredits.reserve(tx, {
          id: 'acr_http_2',
          organizationId: t.orgId,
          turnId: 'turn_http',
          amount: 2,
          at: Date.now(),
        }),
      )
      expect((await t.call('GET', '/v1/ai/workflow/chat/preflight')).body).toEqual({ allowed: false })
    })

    it('GET /v1/ai/credits shows the balance and the entries, newest first; another organization sees its own', async () => {
      const mine = await t.call('GET', '/v1/ai/credits')
      expect(mine.status).toBe(200)
      expect(mine.body.data.balance).toBe(0)
      expect(mine.body.data.items.map((i: { kind: string; amount: number }) => [i.kind, i.amount])).toEqual([
        ['reserve', -2],
        ['grant', 2],
      ])
      const other = await t.newOrganization('other-ai')
      const theirs = await t.call('GET', '/v1/ai/credits', { key: other.key })
      expect(theirs.body.data).toEqual({ balance: 0, items: [] })
    })

    it('needs an API key', async () => {
      expect((await t.call('GET', '/v1/ai/workflow/chat/preflight', { key: null })).status).toBe(401)
    })
  })
}
