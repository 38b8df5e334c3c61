/**
 * The password contract: what every PasswordHasher adapter promises (core/ports/passwords.ts).
 * Run against Bun's native argon2id and the WebAssembly one by passwords.test.ts. A hash is an
 * argon2id PHC string any adapter verifies, so an installation moves between runtimes without
 * anyone's password breaking; a wrong password, or a hash that is not argon2id, is false and
 * never an exception.
 */
import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { type PasswordHasher, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../core/ports/passwords.ts'

export interface PasswordHasherFactory {
  name: string
  /** A hasher with the given argon2id costs (memory in KiB, passes). */
  create(costs: { memoryCost: number; timeCost: number }): PasswordHasher
}

/** The smallest argon2id cost the service allows (OWASP's floor): tests hash often. */
export const TEST_COSTS = Object.freeze({ memoryCost: 19_456, timeCost: 2 })

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/

/** Passwords as people type them: any Unicode, from the shortest allowed. */
const password = fc.string({ unit: 'grapheme', minLength: PASSWORD_MIN_LENGTH, maxLength: 64 })
/**
 * Any string a JSON body can carry, lone surrogates included: each adapter hashes its UTF-8, where
 * a lone surrogate is U+FFFD, so they must agree on those too.
 */
const anyString = fc.oneof(password, fc.string({ unit: 'binary', minLength: PASSWORD_MIN_LENGTH, maxLength: 32 }))

/** Each argon2id hash costs tens of milliseconds: properties try a few cases each. */
const FEW = { numRuns: 4 }

/** Hashes that are not argon2id, or not whole: each verifies as false, for any password. */
const NOT_ARGON2ID = [
  '',
  'password',
  '$2b$12$C6UzMDM.H6dfI/f/IKxGhu0QdXIz8DwN5ObX4fJBJ8OVA8UZZKmdS',
  '$argon2i$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$kWz0sZ0cTDVbQz5cDMhXk3nqWJyxHD1SZ08+0ak66Pw',
  '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA',
  '$argon2id$v=19$m=19456,t=2,p=1$!!!!$!!!!',
  '$argon2id$v=19$m=-1,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$kWz0sZ0cTDVbQz5cDMhXk3nqWJyxHD1SZ08+0ak66Pw',
]

/**
 * The suite for `factory`; `peers` are the other adapters, whose hashes it must verify (each
 * peer's own suite verifies this one's).
 */
export function describePasswordHasherContract(
  factory: PasswordHasherFactory,
  peers: readonly PasswordHasherFactory[],
) {
  describe(`password contract: ${factory.name}`, () => {
    const hasher = factory.create(TEST_COSTS)

    it('hashes to an argon2id PHC string with the costs it was given and a salt of its own', async () => {
      const hash = await hasher.hash('correct horse battery staple')
      const [, memory, time, lanes, salt] = PHC.exec(hash) ?? []
      expect({ memory, time, lanes }).toEqual({
        memory: String(TEST_COSTS.memoryCost),
        time: String(TEST_COSTS.timeCost),
        lanes: '1',
      })
      expect(Buffer.from(salt, 'base64').length).toBeGreaterThanOrEqual(16)
    })

    it('verifies the password it hashed and refuses any other', async () => {
      await fc.assert(
        fc.asyncProperty(password, password, async (right, wrong) => {
          fc.pre(right !== wrong)
          const hash = await hasher.hash(right)
          expect(await hasher.verify(right, hash)).toBe(true)
          expect(await hasher.verify(wrong, hash)).toBe(false)
        }),
        FEW,
      )
    })

    it('salts every hash: one password hashed twice gives two hashes, each verifying it', async () => {
      const [a, b] = [await hasher.hash('the same password'), await hasher.hash('the same password')]
      expect(a).not.toBe(b)
      expect([await hasher.verify('the same password', a), await hasher.verify('the same password', b)]).toEqual([
        true,
        true,
      ])
    })

    it('tells apart passwords that differ only in their last character, at the longest length allowed', async () => {
      const long = 'é'.repeat(PASSWORD_MAX_LENGTH - 1)
      const hash = await hasher.hash(`${long}a`)
      expect(await hasher.verify(`${long}a`, hash)).toBe(true)
      expect(await hasher.verify(`${long}b`, hash)).toBe(false)
      // Nothing after a NUL is ignored either.
      const withNul = await hasher.hash('before\u0000after-1')
      expect(await hasher.verify('before\u0000after-2', withNul)).toBe(false)
    })

    it('answers false, without throwing, for a hash that is not a whole argon2id hash', async () => {
      for (const hash of NOT_ARGON2ID) {
        expect({ hash, verified: await hasher.verify('correct horse battery staple', hash) }).toEqual({
          hash,
          verified: false,
        })
      }
    })

    for (const peer of peers) {
      it(`verifies what ${peer.name} hashed, and refuses other passwords against it`, async () => {
        const other = peer.create(TEST_COSTS)
        await fc.assert(
          fc.asyncProperty(anyString, async (secret) => {
            const theirs = await other.hash(secret)
            expect(await hasher.verify(secret, theirs)).toBe(true)
            expect(await hasher.verify(`${secret}!`, theirs)).toBe(false)
          }),
          FEW,
        )
      })

      it(`verifies a hash ${peer.name} made with other costs: they travel in the hash`, async () => {
        const costly = await peer
          .create({ memoryCost: TEST_COSTS.memoryCost * 2, timeCost: 3 })
          .hash('moved between runtimes')
        expect(PHC.exec(costly)?.slice(1, 3)).toEqual([String(TEST_COSTS.memoryCost * 2), '3'])
        expect(await hasher.verify('moved between runtimes', costly)).toBe(true)
      })
    }
  })
}
