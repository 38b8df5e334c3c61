import { describe, expect, it } from 'bun:test'
import {
  evaluateExpression,
  parseTemplate,
  renderTemplate,
  stringifyValue,
} from '../../../runtime/expressions/index.ts'
import { lookupIn, render } from './scope.ts'

const scope = {
  root: { result: { body: { amount: 150, tags: ['a', 'b'], paid: false, note: null, customer: { name: 'Ada' } } } },
  $vars: { empty: '', zero: 0, list: [], name: 'Bob' },
  $item: { rows: [{ name: 'first' }, { name: 'second' }], 'key with spaces': 'spaced' },
  $index: 0,
  'node-1': { result: { text: 'hello' } },
}

describe('a field that is exactly one expression', () => {
  it('keeps a number a number', () => {
    expect(render('{{ root.result.body.amount }}', scope)).toBe(150)
  })

  it('keeps an object an object and an array an array', () => {
    expect(render('{{root.result.body.customer}}', scope)).toEqual({ name: 'Ada' })
    expect(render('{{root.result.body.tags}}', scope)).toEqual(['a', 'b'])
  })

  it('keeps booleans and null', () => {
    expect(render('{{root.result.body.paid}}', scope)).toBe(false)
    expect(render('{{root.result.body.note}}', scope)).toBeNull()
  })

  it('gives undefined for a missing value', () => {
    expect(render('{{root.result.body.missing}}', scope)).toBeUndefined()
  })

  it('gives a literal its own type', () => {
    expect(render('{{ 42 }}')).toBe(42)
    expect(render("{{ 'x' }}")).toBe('x')
    expect(render('{{ true }}')).toBe(true)
    expect(render('{{ null }}')).toBeNull()
  })
})

describe('an expression inside a longer string', () => {
  it('is interpolated as text', () => {
    expect(render('big order {{root.result.body.amount}} from {{ root.result.body.customer.name }}', scope)).toBe(
      'big order 150 from Ada',
    )
  })

  it('renders undefined and null as an empty string', () => {
    expect(render('[{{root.nothing}}][{{root.result.body.note}}]', scope)).toBe('[][]')
  })

  it('renders booleans and numbers with String and objects and arrays as JSON', () => {
    expect(render('{{root.result.body.paid}}/{{$vars.zero}}', scope)).toBe('false/0')
    expect(render('tags={{root.result.body.tags}} c={{root.result.body.customer}}', scope)).toBe(
      'tags=["a","b"] c={"name":"Ada"}',
    )
  })
})

describe('fallbacks with ||', () => {
  it('use the fallback when the path is missing', () => {
    expect(render('{{ root.result.body.missing || 0 }}', scope)).toBe(0)
  })

  it('keep a present falsy value such as 0 or false', () => {
    expect(render('{{ $vars.zero || 5 }}', scope)).toBe(0)
    expect(render('{{ root.result.body.paid || true }}', scope)).toBe(false)
  })

  it('fall through null and the empty string', () => {
    expect(render("{{ root.result.body.note || $vars.empty || 'x' }}", scope)).toBe('x')
  })

  it('try paths left to right', () => {
    expect(render("{{ a || $vars.name || 'x' }}", scope)).toBe('Bob')
  })

  it('return the last value when every term is empty', () => {
    expect(render('{{ a || $vars.empty }}', scope)).toBe('')
    expect(render('{{ a || b }}', scope)).toBeUndefined()
  })

  it('work inside text', () => {
    expect(render("Hi {{ a || 'there' }}!", scope)).toBe('Hi there!')
  })
})

describe('paths', () => {
  it('index arrays by dot and by bracket', () => {
    expect(render('{{ $item.rows.0.name }}', scope)).toBe('first')
    expect(render('{{ $item.rows[1].name }}', scope)).toBe('second')
    expect(render('{{ $item.rows[1]["name"] }}', scope)).toBe('second')
  })

  it('read keys with spaces through quoted brackets', () => {
    expect(render(`{{ $item['key with spaces'] }}`, scope)).toBe('spaced')
  })

  it('read the length of arrays and strings', () => {
    expect(render('{{ $item.rows.length }}', scope)).toBe(2)
    expect(render('{{ node-1.result.text.length }}', scope)).toBe(5)
  })

  it('give undefined for other properties of strings and numbers', () => {
    expect(render('{{ node-1.result.text.0 }}', scope)).toBeUndefined()
    expect(render('{{ node-1.result.text.toUpperCase }}', scope)).toBeUndefined()
    expect(render('{{ root.result.body.amount.toFixed }}', scope)).toBeUndefined()
    expect(render('{{ root.result.body.amount.length }}', scope)).toBeUndefined()
  })

  it('give undefined for indices past the end and for non-index array keys', () => {
    expect(render('{{ $item.rows.5.name }}', scope)).toBeUndefined()
    expect(render('{{ $item.rows.map }}', scope)).toBeUndefined()
    expect(render('{{ $item.rows.01 }}', scope)).toBeUndefined()
  })

  it('never throw when walking into undefined or null', () => {
    expect(render('{{ root.result.body.note.deep.deeper }}', scope)).toBeUndefined()
    expect(render('{{ nowhere.a.b.c }}', scope)).toBeUndefined()
  })

  it('give undefined for unknown roots', () => {
    expect(render('{{ $unknown }}', scope)).toBeUndefined()
    expect(render('{{ some-node.result }}', scope)).toBeUndefined()
  })

  it('read $index and other roots through the lookup', () => {
    expect(render('{{ $index }}', scope)).toBe(0)
    const asked: string[] = []
    renderTemplate(parseTemplate('{{ $trigger.body || $run.id || root }}'), (root) => {
      asked.push(root)
    })
    expect(asked).toEqual(['$trigger', '$run', 'root'])
  })
})

describe('prototype members', () => {
  const withProto = { a: JSON.parse('{"__proto__": {"polluted": 1}, "x": 1}'), f: (() => 1) as unknown }

  it('are never reachable', () => {
    expect(render('{{ a.__proto__ }}', withProto)).toBeUndefined()
    expect(render('{{ a.constructor }}', withProto)).toBeUndefined()
    expect(render('{{ a.constructor.prototype }}', withProto)).toBeUndefined()
    expect(render('{{ a["__proto__"].polluted }}', withProto)).toBeUndefined()
    expect(render('{{ a.prototype }}', withProto)).toBeUndefined()
    expect(render('{{ a.hasOwnProperty }}', withProto)).toBeUndefined()
    expect(render('{{ a.toString }}', withProto)).toBeUndefined()
    expect(render('{{ f.name }}', withProto)).toBeUndefined()
  })

  it('are not even asked of the lookup as roots', () => {
    const asked: string[] = []
    renderTemplate(parseTemplate('{{ constructor || __proto__ || prototype }}'), (root) => {
      asked.push(root)
      return {}
    })
    expect(asked).toEqual([])
  })

  it('do not hide own properties with other names', () => {
    expect(render('{{ a.x }}', withProto)).toBe(1)
  })
})

describe('evaluateExpression', () => {
  it('evaluates one parsed expression', () => {
    const template = parseTemplate('{{ $vars.name }}')
    if (template.kind !== 'whole') throw new Error('expected a whole template')
    expect(evaluateExpression(template.expr, lookupIn(scope))).toBe('Bob')
  })
})

describe('stringifyValue', () => {
  it('writes values as interpolation does', () => {
    expect(stringifyValue(undefined)).toBe('')
    expect(stringifyValue(null)).toBe('')
    expect(stringifyValue('s')).toBe('s')
    expect(stringifyValue(1.5)).toBe('1.5')
    expect(stringifyValue(true)).toBe('true')
    expect(stringifyValue({ a: [1] })).toBe('{"a":[1]}')
  })

  it('writes an unserializable value as an empty string instead of throwing', () => {
    const circular: Record<string, unknown> = {}
    circular.self = circular
    expect(stringifyValue(circular)).toBe('')
  })
})

describe('the parse cache', () => {
  it('does not change results between lookups', () => {
    const text = 'n={{ $vars.n || 0 }}'
    expect(render(text, { $vars: { n: 1 } })).toBe('n=1')
    expect(render(text, { $vars: { n: 2 } })).toBe('n=2')
    expect(render(text, {})).toBe('n=0')
  })

  it('keeps working past its size bound', () => {
    for (let i = 0; i < 10_050; i++) expect(render(`{{ $vars.v${i} }}`, { $vars: { [`v${i}`]: i } })).toBe(i)
    expect(render('{{ $vars.v0 }}', { $vars: { v0: 'again' } })).toBe('again')
  })

  it('gives the same result for long strings that are not cached', () => {
    const long = `${'x'.repeat(5000)}{{ $vars.name }}`
    expect(render(long, scope)).toBe(`${'x'.repeat(5000)}Bob`)
    expect(render(long, scope)).toBe(`${'x'.repeat(5000)}Bob`)
  })
})
