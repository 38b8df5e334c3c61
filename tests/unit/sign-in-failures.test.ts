/**
 * Failed sign-ins counted in the database, on both stores: attempts taken at once from two
 * connections never pass the limit, the wait is until enough failures leave the window, a key
 * that waits takes nothing from the others, and given-back or cleared attempts free their slots.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { MIGRATIONS } from '../../core/store/migrations.ts'
import { signInFailures } from '../../core/store/sign-in-failures.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestStore, type TestStore } from '../helpers/stores.ts'

const AT = 1_800_000_000_000
const WINDOW = 15 * 60_000

for (const kind of storeKinds()) {
  describe(`sign-in failures (${kind})`, () => {
    let t: TestStore
    beforeAll(async () => {
      t = await openTestStore(kind)
      await t.store.migrate(MIGRATIONS)
    })
    afterAll(() => t.dispose())

    const take = (key: string, limit: number, at: number, store = t.store) =>
      store.write((tx) => signInFailures.take(tx, [{ key, limit }], at, WINDOW))

    it('takes no more attempts than the limit when they come at once from two connections', async () => {
      const other = t.reopen()
      const waits = await Promise.all(
        Array.from({ length: 30 }, (_, i) => take('account-a', 5, AT, i % 2 === 0 ? t.store : other)),
      )
      expect(waits.filter((w) => w === 0).length).toBe(5)
      expect(waits.filter((w) => w === WINDOW / 1000).length).toBe(25)
    })

    it('waits until enough failures have left the window', async () => {
      for (let i = 0; i < 3; i++) expect(await take('account-b', 3, AT + i * 60_000)).toBe(0)
      // The oldest failure leaves the window 15 minutes after it: 13 minutes from the last one.
      expect(await take('account-b', 3, AT + 2 * 60_000)).toBe(13 * 60)
      expect(await take('account-b', 3, AT + WINDOW - 1)).toBe(1)
      expect(await take('account-b', 3, AT + WINDOW + 1)).toBe(0)
    })

    it('takes from every key or none: a key that waits leaves the others untouched', async () => {
      expect(await take('address-c', 1, AT)).toBe(0)
      const both = [
        { key: 'account-c', limit: 1 },
        { key: 'address-c', limit: 1 },
      ]
      expect(await t.store.write((tx) => signInFailures.take(tx, both, AT + 1000, WINDOW))).toBeGreaterThan(0)
      expect(await take('account-c', 1, AT + 2000)).toBe(0)
    })

    it('frees an attempt given back, and every attempt of a cleared key', async () => {
      expect(await take('address-d', 2, AT)).toBe(0)
      expect(await take('address-d', 2, AT + 1)).toBe(0)
      await t.store.write((tx) => signInFailures.giveBack(tx, 'address-d', AT + 1))
      expect(await take('address-d', 2, AT + 2)).toBe(0)
      expect(await take('address-d', 2, AT + 3)).toBeGreaterThan(0)
      await t.store.write((tx) => signInFailures.clear(tx, 'address-d'))
      expect(await take('address-d', 2, AT + 4)).toBe(0)
    })

    it('prunes the keys untouched since a time', async () => {
      expect(await take('account-e', 1, AT - 86_400_000)).toBe(0)
      expect(await t.store.write((tx) => signInFailures.prune(tx, AT - 86_400_000 + 1))).toBe(1)
      expect(await take('account-e', 1, AT - 86_400_000 + 2)).toBe(0)
    })
  })
}
