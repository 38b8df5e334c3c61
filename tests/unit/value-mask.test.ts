/**
 * Properties of masking by value (core/security/value-mask.ts), over JSON-like values built
 * around registered secrets: no secret survives in any string or key at any depth, masking twice
 * is masking once, and a value that holds no secret comes back as it is.
 */
import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { createValueMask, MASK, MIN_MASKED_LENGTH } from '../../core/security/value-mask.ts'

/** Secrets as connectors hold them; none contains the mask's own character. */
const secret = fc
  .string({ unit: 'grapheme', minLength: MIN_MASKED_LENGTH, maxLength: 24 })
  .filter((s) => !s.includes(MASK[0]))
const secrets = fc.uniqueArray(secret, { minLength: 1, maxLength: 3 })

/** Text made of ordinary pieces and, when `among` is given, whole secrets. */
const text = (among: readonly string[]) =>
  fc
    .array(
      among.length > 0 ? fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom(...among)) : fc.string({ maxLength: 8 }),
      { maxLength: 4 },
    )
    .map((parts) => parts.join(''))

/** A JSON-like value whose strings and keys are `text(among)`, nested a few levels. */
const valueWith = (among: readonly string[]) =>
  fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      text(among),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(text(among), tie('value'), { maxKeys: 4 }),
    ),
  })).value

/** Every string of a value, its keys included. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, v]) => [...(Array.isArray(value) ? [] : [key]), ...stringsOf(v)])
}

const withSecrets = secrets.chain((list) => fc.tuple(fc.constant(list), valueWith(list)))

describe('masking by value', () => {
  it('leaves no secret in any string or key, at any depth', () => {
    fc.assert(
      fc.property(withSecrets, ([list, value]) => {
        const masked = createValueMask(list)(value)
        for (const s of stringsOf(masked)) for (const hidden of list) expect(s.includes(hidden)).toBe(false)
      }),
      { numRuns: 500 },
    )
  })

  it('leaves no secret at the bottom of a value nested thousands deep', () => {
    fc.assert(
      fc.property(secret, fc.integer({ min: 100, max: 5000 }), (hidden, depth) => {
        let value: unknown = { note: `the key is ${hidden}`, [hidden]: 1 }
        for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { inner: value }
        let bottom = createValueMask([hidden])(value)
        for (let i = depth - 1; i >= 0; i--)
          bottom = i % 2 ? (bottom as unknown[])[0] : (bottom as { inner: unknown }).inner
        expect(bottom).toEqual({ note: `the key is ${MASK}`, [MASK]: 1 })
      }),
      { numRuns: 20 },
    )
  })

  it('masks once: masking a masked value changes nothing', () => {
    fc.assert(
      fc.property(withSecrets, ([list, value]) => {
        const mask = createValueMask(list)
        const once = mask(value)
        expect(mask(once)).toEqual(once)
      }),
      { numRuns: 300 },
    )
  })

  it('gives back a value that holds no secret as it is, the very same value', () => {
    fc.assert(
      fc.property(secrets, valueWith([]), (list, value) => {
        fc.pre(stringsOf(value).every((s) => list.every((hidden) => !s.includes(hidden))))
        expect(createValueMask(list)(value)).toBe(value)
      }),
      { numRuns: 300 },
    )
  })

  it('changes nothing but the secret: what lies around it stays', () => {
    fc.assert(
      fc.property(secret, fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), (hidden, before, after) => {
        fc.pre(!`${before}${MASK}${after}`.includes(hidden))
        expect(createValueMask([hidden])({ text: `${before}${hidden}${after}` })).toEqual({
          text: `${before}${MASK}${after}`,
        })
      }),
      { numRuns: 300 },
    )
  })
})
