import { describe, expect, it } from 'bun:test'
import { collectReferences, ExpressionSyntaxError, resolveValue } from '../../../runtime/expressions/index.ts'
import { lookupIn } from './scope.ts'

const lookup = lookupIn({
  root: { result: { body: { amount: 150, id: 'o-1', items: [{ sku: 'A' }] } } },
  $vars: { header: 'x-order', token: 't0k', nested: { a: 1 } },
})

describe('resolveValue', () => {
  it('resolves strings deeply inside arrays and objects, keeping whole-expression types', () => {
    const payload = {
      url: 'https://api.test/orders/{{ root.result.body.id }}',
      body: {
        amount: '{{root.result.body.amount}}',
        items: '{{ root.result.body.items }}',
        list: ['{{$vars.token}}', 3, true, null],
      },
    }
    expect(resolveValue(payload, lookup)).toEqual({
      url: 'https://api.test/orders/o-1',
      body: { amount: 150, items: [{ sku: 'A' }], list: ['t0k', 3, true, null] },
    })
  })

  it('replaces a key that is exactly one expression by its stringified value', () => {
    const resolved = resolveValue(
      {
        headers: { '{{ $vars.header }}': '{{ $vars.token }}', '{{root.result.body.amount}}': 1, '{{$vars.nested}}': 2 },
      },
      lookup,
    )
    expect(resolved).toEqual({ headers: { 'x-order': 't0k', '150': 1, '{"a":1}': 2 } })
  })

  it('renders keys with embedded expressions and leaves plain keys alone', () => {
    expect(resolveValue({ 'x-{{ $vars.token }}': 1, plain: 2 }, lookup)).toEqual({ 'x-t0k': 1, plain: 2 })
  })

  it('never mutates its input', () => {
    const input = { a: ['{{ $vars.token }}'], '{{ $vars.header }}': { b: '{{root.result.body.amount}}' } }
    const copy = structuredClone(input)
    const resolved = resolveValue(input, lookup)
    expect(input).toEqual(copy)
    expect(resolved).not.toBe(input)
  })

  it('returns new arrays and objects even without expressions', () => {
    const input = { a: [1, { b: 'plain' }] }
    const resolved = resolveValue(input, lookup) as typeof input
    expect(resolved).toEqual(input)
    expect(resolved.a).not.toBe(input.a)
    expect(resolved.a[1]).not.toBe(input.a[1])
  })

  it('passes numbers, booleans, null and undefined through', () => {
    for (const value of [1, false, null, undefined]) expect(resolveValue(value, lookup)).toBe(value)
  })

  it('writes a key that resolves to "__proto__" as an own property, not the prototype', () => {
    const resolved = resolveValue({ "{{ '__proto__' }}": { polluted: true } }, lookup) as Record<string, unknown>
    expect(Object.getPrototypeOf(resolved)).toBe(Object.prototype)
    expect(Object.hasOwn(resolved, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('throws the syntax error of a malformed string', () => {
    expect(() => resolveValue({ a: '{{ oops' }, lookup)).toThrow(ExpressionSyntaxError)
  })
})

describe('collectReferences', () => {
  it('lists references with the JSON pointer of the string that holds them', () => {
    const { refs, errors } = collectReferences({ url: '{{ root.result.body.id }}', headers: { x: '{{$vars.token}}' } })
    expect(errors).toEqual([])
    expect(refs).toEqual([
      { root: 'root', path: ['result', 'body', 'id'], text: 'root.result.body.id', pointer: '/url' },
      { root: '$vars', path: ['token'], text: '$vars.token', pointer: '/headers/x' },
    ])
  })

  it('lists every reference of a string with several expressions and every path term of a fallback', () => {
    const { refs } = collectReferences({ message: "{{ a.b }} and {{ c || d.e || 'x' || 0 }}" })
    expect(refs.map((ref) => `${ref.pointer} ${ref.text}`)).toEqual(['/message a.b', '/message c', '/message d.e'])
  })

  it('finds references in condition keys, operands and array items', () => {
    const condition = {
      $and: [{ '{{a.b}}': { $gt: '{{ $vars.min }}' } }, { $or: [{ x: { $in: ['{{ $item.id }}'] } }] }],
    }
    const { refs } = collectReferences({ condition })
    expect(refs.map((ref) => [ref.pointer, ref.text])).toEqual([
      ['/condition/$and/0/{{a.b}}', 'a.b'],
      ['/condition/$and/0/{{a.b}}/$gt', '$vars.min'],
      ['/condition/$and/1/$or/0/x/$in/0', '$item.id'],
    ])
  })

  it('escapes "~" and "/" in pointers', () => {
    const { refs } = collectReferences({ 'a/b': { 'c~d': '{{ x }}' } })
    expect(refs[0].pointer).toBe('/a~1b/c~0d')
  })

  it('uses the empty pointer for a top-level string', () => {
    expect(collectReferences('{{ x.y }}').refs[0].pointer).toBe('')
  })

  it('returns syntax errors with their pointer instead of throwing', () => {
    const { refs, errors } = collectReferences({ ok: '{{ fine }}', bad: ['{{ a || }}'], '{{ k': 1 })
    expect(refs.map((ref) => ref.text)).toEqual(['fine'])
    expect(errors).toEqual([
      { pointer: '/bad/0', message: 'dangling "||": expected a path or a literal after it at offset 5' },
      { pointer: '/{{ k', message: 'in key "{{ k": unclosed "{{": no matching "}}" at offset 0' },
    ])
  })

  it('ignores literals and plain strings', () => {
    expect(collectReferences({ a: "{{ 'x' || 1 }}", b: 'plain', c: 3 }).refs).toEqual([])
  })
})
