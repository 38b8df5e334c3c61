/**
 * Properties of the expression language: a template printed from any expressions (paths of every
 * segment kind, literals of every type, `||`, any spacing and quoting) parses back to what was
 * printed; any string at all either parses or is refused with an ExpressionSyntaxError pointing
 * inside it; `||` gives the first term that is not empty; and a path reads own data only.
 */
import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import {
  evaluateExpression,
  ExpressionSyntaxError,
  parseTemplate,
  readPath,
  type Term,
} from '../../../runtime/expressions/index.ts'

/** Keys a path never follows, own or not. */
const BLOCKED = ['__proto__', 'constructor', 'prototype']
const space = fc.stringMatching(/^[ \t\n\r]{0,2}$/)
const identifier = fc
  .stringMatching(/^[A-Za-z_$][A-Za-z0-9_$-]{0,8}$/)
  .filter((name) => !['true', 'false', 'null'].includes(name))

/** A term and how it is written. */
interface Printed {
  term: Term
  text: string
}

/** A quoted string literal: only the quote and the backslash are escaped. */
const quoted = (value: string, quote: "'" | '"') =>
  `${quote}${value.replace(/\\/g, '\\\\').replaceAll(quote, `\\${quote}`)}${quote}`

const stringLiteral = fc
  .tuple(fc.string({ maxLength: 12 }), fc.constantFrom<"'" | '"'>("'", '"'))
  .map(([value, quote]): Printed => ({ term: { kind: 'literal', value }, text: quoted(value, quote) }))
const numberLiteral = fc
  .oneof(fc.integer({ min: -1e9, max: 1e9 }), fc.double({ noNaN: true, noDefaultInfinity: true }))
  .filter((n) => !Object.is(n, -0))
  .map((value): Printed => ({ term: { kind: 'literal', value }, text: String(value) }))
const keyword = fc
  .constantFrom(true, false, null)
  .map((value): Printed => ({ term: { kind: 'literal', value }, text: String(value) }))

const segment = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_$-]{1,8}$/).map((name) => ({ key: name, text: `.${name}` })),
  fc.tuple(fc.nat(9999), space, space).map(([index, a, b]) => ({ key: String(index), text: `[${a}${index}${b}]` })),
  fc
    .tuple(fc.string({ maxLength: 8 }), fc.constantFrom<"'" | '"'>("'", '"'), space, space)
    .map(([key, quote, a, b]) => ({ key, text: `[${a}${quoted(key, quote)}${b}]` })),
)
const pathTerm = fc.tuple(identifier, fc.array(segment, { maxLength: 4 })).map(([root, segments]): Printed => {
  const text = root + segments.map((s) => s.text).join('')
  return { term: { kind: 'path', ref: { root, path: segments.map((s) => s.key), text } }, text }
})

const term = fc.oneof(pathTerm, pathTerm, stringLiteral, numberLiteral, keyword)

/** `{{ a || b }}` with any spacing: the terms and the source as written. */
const expression = fc
  .tuple(fc.array(fc.tuple(term, space, space), { minLength: 1, maxLength: 3 }), space, space)
  .map(([terms, open, close]) => {
    const inside = terms.map(([t, before, after], i) => (i === 0 ? t.text : `${before}||${after}${t.text}`)).join('')
    return { terms: terms.map(([t]) => t.term), source: `{{${open}${inside}${close}}}` }
  })

/** Plain text between expressions: it cannot open one, nor end in a brace that would join the next `{{`. */
const plain = fc.string({ maxLength: 10 }).filter((s) => !s.includes('{{') && !s.endsWith('{'))

const template = fc
  .array(fc.tuple(plain, expression), { maxLength: 3 })
  .chain((pairs) => plain.map((tail) => ({ pairs, tail })))

describe('the expression language', () => {
  it('parses a printed template back into its text and expressions, in order', () => {
    fc.assert(
      fc.property(template, ({ pairs, tail }) => {
        const text = pairs.map(([before, e]) => before + e.source).join('') + tail
        const parts = [...pairs.flatMap(([before, e]) => [before, e]), tail].filter((part) => part !== '')
        const parsed = parseTemplate(text)
        if (pairs.length === 0) expect(parsed).toEqual({ kind: 'plain', value: text })
        else if (parts.length === 1) expect(parsed).toEqual({ kind: 'whole', expr: parts[0] as never })
        else expect(parsed).toEqual({ kind: 'text', parts: parts as never })
      }),
      { numRuns: 1000 },
    )
  })

  it('parses any string or refuses it with an ExpressionSyntaxError pointing inside it', () => {
    const pieces = fc.constantFrom(
      '{{',
      '}}',
      '{',
      '}',
      "'",
      '"',
      '\\',
      '||',
      '|',
      '.',
      '[',
      ']',
      ' ',
      'a',
      'b-c',
      '0',
      '-',
      '1e5',
      'true',
      '$vars',
    )
    const anyText = fc.oneof(
      fc.string(),
      fc.array(fc.oneof(pieces, fc.string({ maxLength: 2 })), { maxLength: 20 }).map((p) => p.join('')),
    )
    fc.assert(
      fc.property(anyText, (text) => {
        try {
          parseTemplate(text)
        } catch (error) {
          expect(error).toBeInstanceOf(ExpressionSyntaxError)
          const { offset } = error as ExpressionSyntaxError
          expect(offset >= 0 && offset < text.length).toBe(true)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('gives the first term that is neither undefined, null nor empty, else the last', () => {
    const value = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.constant(''),
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(0),
    )
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 5 }), (values) => {
        const terms: Term[] = values.map((v, i) => ({ kind: 'path', ref: { root: `t${i}`, path: [], text: `t${i}` } }))
        const lookup = (root: string) => values[Number(root.slice(1))]
        const chosen = values.find((v) => v !== undefined && v !== null && v !== '')
        expect(evaluateExpression({ terms, source: '' }, lookup)).toBe(chosen === undefined ? values.at(-1) : chosen)
      }),
    )
  })

  it("reads a path over own data only: an object's own keys, an array's indices and lengths, a string's length", () => {
    const hostileKey = fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      'valueOf',
      'length',
      '0',
      '1',
      '01',
      '-1',
    )
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.array(fc.oneof(hostileKey, fc.string({ maxLength: 3 })), { maxLength: 4 }),
        (data, path) => {
          // The walk as the language defines it, written out.
          let expected: unknown = data
          for (const key of path) {
            // A walk into undefined or null gives undefined.
            if (expected === undefined || expected === null) expected = undefined
            else if (typeof expected === 'string') expected = key === 'length' ? expected.length : undefined
            else if (Array.isArray(expected))
              expected =
                key === 'length' ? expected.length : /^(0|[1-9]\d*)$/.test(key) ? expected[Number(key)] : undefined
            else if (typeof expected === 'object' && Object.hasOwn(expected, key) && !BLOCKED.includes(key))
              expected = (expected as Record<string, unknown>)[key]
            else expected = undefined
          }
          expect(readPath({ root: 'data', path, text: '' }, (root) => (root === 'data' ? data : undefined))).toEqual(
            expected,
          )
        },
      ),
      { numRuns: 1000 },
    )
  })
})
