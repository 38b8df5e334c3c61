import { describe, expect, it } from 'bun:test'
import {
  CONDITION_OPS,
  ConditionError,
  evaluateCondition,
  validateCondition,
} from '../../../runtime/expressions/index.ts'
import { lookupIn } from './scope.ts'

const lookup = lookupIn({
  root: {
    result: {
      body: {
        amount: 150,
        amountText: '150',
        name: 'Ada Lovelace',
        tags: ['vip', 'eu'],
        ids: [1, 2],
        paid: true,
        note: null,
        empty: '',
      },
    },
  },
  $vars: { min: 100, list: ['a', 'b'], flag: 'true' },
  $item: { id: 2, sku: 'A-1' },
})

/** Evaluates one test `{ key: { op: operand } }` inside an `$and`. */
function holds(key: string, op: string, operand: unknown): boolean {
  return evaluateCondition({ $and: [{ [key]: { [op]: operand } }] }, lookup)
}

const amount = '{{ root.result.body.amount }}'
const amountText = '{{ root.result.body.amountText }}'
const name = '{{ root.result.body.name }}'
const tags = '{{ root.result.body.tags }}'

describe('the left value', () => {
  it('keeps its type when the key is exactly one expression', () => {
    expect(holds(amount, '$eq', 150)).toBe(true)
    expect(holds(tags, '$eq', ['vip', 'eu'])).toBe(true)
  })

  it('is a string when the key has embedded expressions', () => {
    expect(holds('n={{ root.result.body.amount }}', '$eq', 'n=150')).toBe(true)
  })

  it('is the literal string when the key has no expression', () => {
    expect(holds('hello', '$startsWith', 'he')).toBe(true)
  })

  it('is compared with operands that are expressions too', () => {
    expect(holds(amount, '$gt', '{{ $vars.min }}')).toBe(true)
    expect(holds('{{ $item.id }}', '$in', ['{{ root.result.body.ids.0 }}', '{{ root.result.body.ids.1 }}'])).toBe(true)
  })
})

describe('$eq and $ne', () => {
  it('compare deeply', () => {
    expect(holds('{{ $vars }}', '$eq', { min: 100, list: ['a', 'b'], flag: 'true' })).toBe(true)
    expect(holds(tags, '$eq', ['eu', 'vip'])).toBe(false)
    expect(holds(tags, '$ne', ['eu', 'vip'])).toBe(true)
  })

  it('equate a number with its numeric string, in both directions', () => {
    expect(holds(amount, '$eq', '150')).toBe(true)
    expect(holds(amountText, '$eq', 150)).toBe(true)
    expect(holds(amount, '$eq', '150.0')).toBe(true)
    expect(holds(amount, '$ne', '151')).toBe(true)
    expect(holds(amount, '$eq', 'abc')).toBe(false)
  })

  it('equate a boolean with "true" or "false"', () => {
    expect(holds('{{ root.result.body.paid }}', '$eq', 'true')).toBe(true)
    expect(holds('{{ $vars.flag }}', '$eq', true)).toBe(true)
    expect(holds('{{ root.result.body.paid }}', '$eq', 'false')).toBe(false)
  })

  it('do not coerce inside nested values', () => {
    expect(holds('{{ root.result.body.ids }}', '$eq', ['1', '2'])).toBe(false)
  })

  it('treat a missing value as equal to null', () => {
    expect(holds('{{ root.result.body.missing }}', '$eq', null)).toBe(true)
    expect(holds('{{ root.result.body.note }}', '$eq', null)).toBe(true)
    expect(holds(amount, '$ne', null)).toBe(true)
  })
})

describe('$gt, $gte, $lt and $lte', () => {
  it('compare numbers and numeric strings as numbers', () => {
    expect(holds(amount, '$gt', 100)).toBe(true)
    expect(holds(amount, '$gte', 150)).toBe(true)
    expect(holds(amount, '$lt', 150)).toBe(false)
    expect(holds(amount, '$lte', '150')).toBe(true)
    expect(holds(amountText, '$gt', '99')).toBe(true)
  })

  it('compare two non-numeric strings lexicographically', () => {
    expect(holds('2026-03-01', '$gt', '2026-02-28')).toBe(true)
    expect(holds('apple', '$lt', 'banana')).toBe(true)
    expect(holds('b', '$lte', 'a')).toBe(false)
  })

  it('are false for null, undefined, booleans, objects and number versus text', () => {
    expect(holds('{{ root.result.body.note }}', '$gt', 0)).toBe(false)
    expect(holds('{{ root.result.body.missing }}', '$lt', 0)).toBe(false)
    expect(holds('{{ root.result.body.paid }}', '$gte', 0)).toBe(false)
    expect(holds(tags, '$gt', 0)).toBe(false)
    expect(holds(amount, '$gt', 'abc')).toBe(false)
    expect(holds(amount, '$lt', 'abc')).toBe(false)
  })
})

describe('$contains and $notContains', () => {
  it('find a substring in a string', () => {
    expect(holds(name, '$contains', 'Love')).toBe(true)
    expect(holds(name, '$notContains', 'love')).toBe(true)
    expect(holds('order 150', '$contains', 150)).toBe(true)
  })

  it('find an element in an array, with $eq coercion', () => {
    expect(holds(tags, '$contains', 'vip')).toBe(true)
    expect(holds('{{ root.result.body.ids }}', '$contains', '2')).toBe(true)
    expect(holds(tags, '$notContains', 'us')).toBe(true)
  })

  it('are false (and $notContains true) for anything else', () => {
    expect(holds(amount, '$contains', '15')).toBe(false)
    expect(holds(amount, '$notContains', '15')).toBe(true)
    expect(holds('{{ root.result.body.missing }}', '$contains', 'x')).toBe(false)
    expect(holds('{{ root.result.body.missing }}', '$notContains', 'x')).toBe(true)
  })
})

describe('$startsWith and $endsWith', () => {
  it('test strings', () => {
    expect(holds(name, '$startsWith', 'Ada')).toBe(true)
    expect(holds(name, '$endsWith', 'lace')).toBe(true)
    expect(holds(name, '$endsWith', 'Ada')).toBe(false)
  })

  it('take a number on the left as its text', () => {
    expect(holds(amount, '$startsWith', '15')).toBe(true)
    expect(holds(amount, '$endsWith', 50)).toBe(true)
  })

  it('are false for other kinds', () => {
    expect(holds(tags, '$startsWith', 'vip')).toBe(false)
    expect(holds('{{ root.result.body.missing }}', '$endsWith', '')).toBe(false)
  })
})

describe('$exists and $notExists', () => {
  it('tell present values from undefined and null', () => {
    expect(holds(amount, '$exists', true)).toBe(true)
    expect(holds('{{ root.result.body.empty }}', '$exists', true)).toBe(true)
    expect(holds('{{ root.result.body.note }}', '$exists', true)).toBe(false)
    expect(holds('{{ root.result.body.missing }}', '$exists', true)).toBe(false)
    expect(holds('{{ root.result.body.missing }}', '$notExists', true)).toBe(true)
    expect(holds(amount, '$notExists', true)).toBe(false)
  })

  it('invert with false', () => {
    expect(holds('{{ root.result.body.missing }}', '$exists', false)).toBe(true)
    expect(holds(amount, '$notExists', false)).toBe(true)
  })
})

describe('$in and $notIn', () => {
  it('test membership with $eq semantics', () => {
    expect(holds('{{ $item.sku }}', '$in', ['A-1', 'B-2'])).toBe(true)
    expect(holds(amount, '$in', ['150', '200'])).toBe(true)
    expect(holds(amount, '$notIn', [1, 2])).toBe(true)
    expect(holds('c', '$in', '{{ $vars.list }}')).toBe(false)
    expect(holds('a', '$in', '{{ $vars.list }}')).toBe(true)
  })

  it('find nothing in an operand expression that is not an array', () => {
    expect(holds('a', '$in', '{{ $vars.flag }}')).toBe(false)
    expect(holds('a', '$notIn', '{{ $vars.flag }}')).toBe(true)
  })
})

describe('combining tests', () => {
  it('ANDs several operators under one key and several keys in one item', () => {
    const between = { $and: [{ [amount]: { $gt: 100, $lt: 200 } }] }
    expect(evaluateCondition(between, lookup)).toBe(true)
    const outside = { $and: [{ [amount]: { $gt: 100, $lt: 120 } }] }
    expect(evaluateCondition(outside, lookup)).toBe(false)
    const twoKeys = { $or: [{ [amount]: { $gt: 100 }, [name]: { $startsWith: 'Bob' } }] }
    expect(evaluateCondition(twoKeys, lookup)).toBe(false)
  })

  it('nests $and and $or', () => {
    const condition = {
      $or: [
        { [amount]: { $gt: 1000 } },
        {
          $and: [
            { [tags]: { $contains: 'vip' } },
            { $or: [{ [name]: { $startsWith: 'X' } }, { [amount]: { $eq: 150 } }] },
          ],
        },
      ],
    }
    expect(evaluateCondition(condition, lookup)).toBe(true)
  })

  it('treats an empty $and as true and an empty $or as false', () => {
    expect(evaluateCondition({ $and: [] }, lookup)).toBe(true)
    expect(evaluateCondition({ $or: [] }, lookup)).toBe(false)
    expect(evaluateCondition({ $and: [{ $or: [] }] }, lookup)).toBe(false)
  })

  it('stops at the first deciding item', () => {
    const asked: string[] = []
    const counting = (root: string) => {
      asked.push(root)
      return 1
    }
    evaluateCondition({ $or: [{ '{{ first }}': { $eq: 1 } }, { '{{ second }}': { $eq: 1 } }] }, counting)
    expect(asked).toEqual(['first'])
  })

  it('throws a ConditionError listing the problems of a malformed condition', () => {
    const run = () => evaluateCondition({ $and: [{ a: { $nope: 1 } }] }, lookup)
    expect(run).toThrow(ConditionError)
    expect(run).toThrow('invalid condition at "/$and/0/a/$nope": unknown operator "$nope"')
  })
})

describe('CONDITION_OPS', () => {
  it('lists the fourteen operators', () => {
    expect([...CONDITION_OPS].sort()).toEqual([
      '$contains',
      '$endsWith',
      '$eq',
      '$exists',
      '$gt',
      '$gte',
      '$in',
      '$lt',
      '$lte',
      '$ne',
      '$notContains',
      '$notExists',
      '$notIn',
      '$startsWith',
    ])
  })
})

describe('validateCondition', () => {
  function messages(condition: unknown): string[] {
    return validateCondition(condition).map((problem) => `${problem.pointer} ${problem.message}`)
  }

  it('accepts well-formed conditions', () => {
    expect(validateCondition({ $and: [{ [amount]: { $gt: 100, $lte: '{{ $vars.max }}' } }, { $or: [] }] })).toEqual([])
    expect(validateCondition({ $or: [{ x: { $in: '{{ $vars.list }}', $exists: true } }] })).toEqual([])
  })

  it('refuses a condition that is not an object with $and or $or', () => {
    for (const bad of [null, 'x', [], {}, { a: { $eq: 1 } }]) {
      expect(messages(bad)).toEqual([' a condition must be an object with "$and" or "$or" at the top level'])
    }
  })

  it('refuses $and and $or at one level', () => {
    expect(messages({ $and: [], $or: [] })).toEqual([
      ' one level cannot hold both "$and" and "$or"; nest one inside the other',
    ])
    expect(messages({ $and: [{ $and: [], $or: [] }] })[0]).toStartWith('/$and/0 one level cannot hold both')
  })

  it('refuses extra keys beside $and or $or and a non-array group', () => {
    expect(messages({ $and: [], other: 1 })).toEqual(['/other unexpected key "other" next to "$and"'])
    expect(messages({ $or: {} })).toEqual(['/$or "$or" must be an array of conditions'])
  })

  it('refuses items that are not objects, empty items and tests without operators', () => {
    expect(messages({ $and: [1, {}, { a: 1 }, { b: {} }] })).toEqual([
      '/$and/0 a condition item must be an object: { "<value>": { "<op>": <operand> } } or a nested "$and" / "$or"',
      '/$and/1 a condition item must name at least one value to test',
      '/$and/2/a expected an object of operators such as { "$eq": … } for "a"',
      '/$and/3/b expected an object of operators such as { "$eq": … } for "b"',
    ])
  })

  it('refuses unknown operators', () => {
    expect(messages({ $or: [{ a: { $regex: 'x' } }] })).toEqual([
      `/$or/0/a/$regex unknown operator "$regex"; expected one of ${CONDITION_OPS.join(' ')}`,
    ])
  })

  it('refuses literal operands of the wrong kind', () => {
    expect(
      messages({ $and: [{ a: { $in: 'x', $notIn: 3, $exists: 'yes', $gt: null, $startsWith: [], $contains: null } }] }),
    ).toEqual([
      '/$and/0/a/$in "$in" expects an array or an expression, got "x"',
      '/$and/0/a/$notIn "$notIn" expects an array or an expression, got 3',
      '/$and/0/a/$exists "$exists" expects true or false or an expression, got "yes"',
      '/$and/0/a/$gt "$gt" expects a number or a string or an expression, got null',
      '/$and/0/a/$startsWith "$startsWith" expects a string or a number or an expression, got an array',
      '/$and/0/a/$contains "$contains" expects a value (not null) or an expression, got null',
    ])
  })

  it('reports expression syntax errors in keys and operands', () => {
    expect(messages({ $and: [{ '{{ a ||': { $eq: 1 } }, { b: { $in: ['{{ c. }}'] } }] })).toEqual([
      '/$and/0/{{ a || in key "{{ a ||": unclosed "{{": no matching "}}" at offset 0',
      '/$and/1/b/$in/0 expected a property name or an index after "." at offset 4',
    ])
  })
})
