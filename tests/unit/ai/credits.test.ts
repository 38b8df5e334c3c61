/** The AI credit ledger on both stores: exact accounting, no double charge, never below zero under concurrency. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { MIGRATIONS } from '../../../core/store/migrations.ts'
import { aiCredits, creditsForTokens } from '../../../core/store/ai-credits.ts'
import { storeKinds } from '../../helpers/services.ts'
import { openTestStore, type TestStore } from '../../helpers/stores.ts'

const AT = 1_800_000_000_000

for (const kind of storeKinds()) {
  describe(`AI credit ledger (${kind})`, () => {
    let t: TestStore
    let n = 0
    const id = () => `acr_${++n}`
    beforeAll(async () => {
      t = await openTestStore(kind)
      await t.store.migrate(MIGRATIONS)
    })
    afterAll(() => t.dispose())

    it('rounds tokens up to whole credits', () => {
      expect([creditsForTokens(0), creditsForTokens(1), creditsForTokens(1000), creditsForTokens(1001)]).toEqual([
        0, 1, 1, 2,
      ])
    })

    it('an organization never granted has zero and cannot reserve', async () => {
      expect(await aiCredits.balance(t.store, 'org_none')).toBe(0)
      expect(
        await t.store.write((tx) =>
          aiCredits.reserve(tx, { id: id(), organizationId: 'org_none', turnId: 'turn_none', amount: 1, at: AT }),
        ),
      ).toBe(false)
      expect(await aiCredits.entries(t.store, 'org_none')).toEqual([])
    })

    it('reserve then settle charges exactly the tokens used, once', async () => {
      await t.store.write((tx) => aiCredits.grant(tx, { id: id(), organizationId: 'org_a', amount: 10, at: AT }))
      expect(
        await t.store.write((tx) =>
          aiCredits.reserve(tx, { id: id(), organizationId: 'org_a', turnId: 'turn_1', amount: 4, at: AT + 1 }),
        ),
      ).toBe(true)
      expect(await aiCredits.balance(t.store, 'org_a')).toBe(6)
      expect(
        await t.store.write((tx) =>
          aiCredits.settle(tx, { id: id(), organizationId: 'org_a', turnId: 'turn_1', tokensUsed: 2500, at: AT + 2 }),
        ),
      ).toBe(3)
      expect(await aiCredits.balance(t.store, 'org_a')).toBe(7)
      // A retried settlement and a late refund change nothing.
      await t.store.write((tx) =>
        aiCredits.settle(tx, { id: id(), organizationId: 'org_a', turnId: 'turn_1', tokensUsed: 2500, at: AT + 3 }),
      )
      await t.store.write((tx) =>
        aiCredits.refund(tx, { id: id(), organizationId: 'org_a', turnId: 'turn_1', at: AT + 4 }),
      )
      expect(await aiCredits.balance(t.store, 'org_a')).toBe(7)
      // The second reservation of the same turn is refused.
      expect(
        await t.store.write((tx) =>
          aiCredits.reserve(tx, { id: id(), organizationId: 'org_a', turnId: 'turn_1', amount: 1, at: AT + 5 }),
        ),
      ).toBe(false)
      const entries = await aiCredits.entries(t.store, 'org_a')
      expect(entries.map((e) => [e.kind, e.amount])).toEqual([
        ['settle', 1],
        ['reserve', -4],
        ['grant', 10],
      ])
      expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(7)
    })

    it('a failed turn is refunded in full, once', async () => {
      await t.store.write((tx) => aiCredits.grant(tx, { id: id(), organizationId: 'org_b', amount: 5, at: AT }))
      await t.store.write((tx) =>
        aiCredits.reserve(tx, { id: id(), organizationId: 'org_b', turnId: 'turn_f', amount: 5, at: AT + 1 }),
      )
      expect(await aiCredits.balance(t.store, 'org_b')).toBe(0)
      await t.store.write((tx) =>
        aiCredits.refund(tx, { id: id(), organizationId: 'org_b', turnId: 'turn_f', at: AT + 2 }),
      )
      await t.store.write((tx) =>
        aiCredits.refund(tx, { id: id(), organizationId: 'org_b', turnId: 'turn_f', at: AT + 3 }),
      )
      expect(await aiCredits.balance(t.store, 'org_b')).toBe(5)
    })

    it('concurrent reservations never spend more than the balance, also from a second connection', async () => {
      await t.store.write((tx) => aiCredits.grant(tx, { id: id(), organizationId: 'org_c', amount: 7, at: AT }))
      const other = t.reopen()
      const attempts = Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? t.store : other).write((tx) =>
          aiCredits.reserve(tx, {
            id: `acr_c_${i}`,
            organizationId: 'org_c',
            turnId: `turn_c_${i}`,
            amount: 1,
            at: AT + i,
          }),
        ),
      )
      const outcomes = await Promise.all(attempts)
      expect(outcomes.filter(Boolean).length).toBe(7)
      expect(await aiCredits.balance(t.store, 'org_c')).toBe(0)
      const entries = await aiCredits.entries(t.store, 'org_c')
      expect(entries.filter((e) => e.kind === 'reserve').length).toBe(7)
    })
  })
}
