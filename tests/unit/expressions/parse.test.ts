import { describe, expect, it } from 'bun:test'
import { ExpressionSyntaxError, hasExpression, parseTemplate } from '../../../runtime/expressions/index.ts'
import { syntaxErrorOf } from './scope.ts'

describe('parseTemplate', () => {
  it('keeps a string without braces as plain text', () => {
    expect(parseTemplate('hello } { world')).toEqual({ kind: 'plain', value: 'hello } { world' })
  })

  it('treats a string that is exactly one expression as whole, inner whitespace allowed', () => {
    const template = parseTemplate('{{  root.result.body.amount  }}')
    expect(template.kind).toBe('whole')
    if (template.kind !== 'whole') return
    expect(template.expr.source).toBe('{{  root.result.body.amount  }}')
    expect(template.expr.terms).toEqual([
      { kind: 'path', ref: { root: 'root', path: ['result', 'body', 'amount'], text: 'root.result.body.amount' } },
    ])
  })

  it('treats an expression with surrounding spaces as text, not whole', () => {
    expect(parseTemplate(' {{a}}').kind).toBe('text')
    expect(parseTemplate('{{a}} ').kind).toBe('text')
  })

  it('splits text and expressions in order', () => {
    const template = parseTemplate('Hi {{ $vars.name }}, you owe {{amount}}!')
    expect(template.kind).toBe('text')
    if (template.kind !== 'text') return
    expect(template.parts.map((part) => (typeof part === 'string' ? part : part.source))).toEqual([
      'Hi ',
      '{{ $vars.name }}',
      ', you owe ',
      '{{amount}}',
      '!',
    ])
  })

  it('reads dot, numeric and bracket segments', () => {
    const template = parseTemplate(`{{ $nodes.fetch-rows.result.rows.0["first name"]['x'][12].y-z }}`)
    if (template.kind !== 'whole') throw new Error('expected a whole template')
    expect(template.expr.terms[0]).toEqual({
      kind: 'path',
      ref: {
        root: '$nodes',
        path: ['fetch-rows', 'result', 'rows', '0', 'first name', 'x', '12', 'y-z'],
        text: `$nodes.fetch-rows.result.rows.0["first name"]['x'][12].y-z`,
      },
    })
  })

  it('reads every kind of literal', () => {
    const template = parseTemplate(
      `{{ a || 12 || -3.5 || 1e3 || 'it\\'s' || "say \\"hi\\"" || '\\\\' || true || false || null }}`,
    )
    if (template.kind !== 'whole') throw new Error('expected a whole template')
    expect(template.expr.terms.map((term) => (term.kind === 'literal' ? term.value : term.ref.text))).toEqual([
      'a',
      12,
      -3.5,
      1000,
      "it's",
      'say "hi"',
      '\\',
      true,
      false,
      null,
    ])
  })

  it('does not close an expression on "}}" inside a quoted string', () => {
    const template = parseTemplate(`{{ a || '}}' }}`)
    expect(template.kind).toBe('whole')
  })

  it('accepts identifiers with $, _ and - (node ids)', () => {
    const template = parseTemplate('{{ $parent_item || _x || send-mail-2.result }}')
    if (template.kind !== 'whole') throw new Error('expected a whole template')
    expect(template.expr.terms.map((term) => (term.kind === 'path' ? term.ref.root : undefined))).toEqual([
      '$parent_item',
      '_x',
      'send-mail-2',
    ])
  })

  it('returns the same frozen template from its cache', () => {
    const first = parseTemplate('cached {{ a.b }}')
    const second = parseTemplate('cached {{ a.b }}')
    expect(second).toBe(first)
    expect(Object.isFrozen(first)).toBe(true)
  })
})

describe('hasExpression', () => {
  it('is true only when the string contains "{{"', () => {
    expect(hasExpression('a {{b}}')).toBe(true)
    expect(hasExpression('a {b} }}')).toBe(false)
    expect(hasExpression('{{ unclosed')).toBe(true)
  })
})

describe('syntax errors', () => {
  const cases: Array<[string, string, number]> = [
    ['an unclosed "{{"', 'total: {{ a.b', 7],
    ['an unclosed "{{" after a good one', '{{a}} and {{ b', 10],
    ['an empty expression', 'x {{   }}', 2],
    ['a dangling "||" at the end', '{{ a || }}', 5],
    ['a dangling "||" at the start', '{{ || a }}', 3],
    ['two "||" in a row', '{{ a || || b }}', 5],
    ['a single "|"', '{{ a | b }}', 5],
    ['a bad number literal', '{{ 12abc }}', 3],
    ['a lone minus', '{{ - 1 }}', 3],
    ['a number with two dots', '{{ 1.2.3 }}', 3],
    ['an unterminated string', `{{ 'abc }}`, 3],
    ['an unknown escape', `{{ 'a\\nb' }}`, 5],
    ['a bracket without index or quoted key', '{{ a[b] }}', 4],
    ['an unclosed bracket', '{{ a[0 }}', 7],
    ['a trailing dot', '{{ a. }}', 4],
    ['two terms without "||"', '{{ a b }}', 5],
    ['an expression inside an expression', '{{ {{a}} }}', 3],
  ]
  for (const [what, text, offset] of cases) {
    it(`reports ${what} with its offset`, () => {
      const error = syntaxErrorOf(text)
      expect(error?.offset).toBe(offset)
      expect(error?.message).toContain(`at offset ${offset}`)
    })
  }

  it('are ExpressionSyntaxError instances with clear messages', () => {
    expect(() => parseTemplate('{{ a')).toThrow(ExpressionSyntaxError)
    expect(syntaxErrorOf('{{ a')?.message).toBe('unclosed "{{": no matching "}}" at offset 0')
    expect(syntaxErrorOf('{{ a || }}')?.message).toContain('dangling "||"')
    expect(syntaxErrorOf('{{ }}')?.message).toContain('empty expression')
    expect(syntaxErrorOf('{{ 1x }}')?.message).toContain('bad number literal "1x"')
    expect(syntaxErrorOf('{{ a[b] }}')?.message).toContain('bad bracket')
  })

  it('are not cached: a bad template fails every time', () => {
    expect(syntaxErrorOf('{{ again')).toBeDefined()
    expect(syntaxErrorOf('{{ again')).toBeDefined()
  })
})
