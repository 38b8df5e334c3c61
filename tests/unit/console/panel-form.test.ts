/**
 * The node panel's pure parts: JSON pointers into a node, the form model of a payload schema,
 * which problems a field shows, and the rows of an `if` condition.
 */
import { describe, expect, it } from 'bun:test'
import { Type } from '@sinclair/typebox'
import { Condition } from '../../../core/plugin/schemas.ts'
import {
  conditionOf,
  conditionRows,
  operandText,
  parseOperand,
} from '../../../console/src/editor/panel/condition-model.ts'
import { childPointer, getAt, optionKeyOf, parsePointer, setAt } from '../../../console/src/editor/panel/pointer.ts'
import { otherProblems, problemsOf } from '../../../console/src/editor/panel/problems.ts'
import { renameProblem } from '../../../console/src/editor/panel/rename-input.tsx'
import {
  emptyValue,
  fieldOf,
  labelOf,
  objectFields,
  variantFor,
  variantLabel,
} from '../../../console/src/editor/panel/schema-model.ts'

/** A schema as the catalog answers it: TypeBox's JSON Schema, plain JSON. */
const json = (schema: unknown) => JSON.parse(JSON.stringify(schema))

describe('JSON pointers into a node', () => {
  const node = { type: 'log', payload: { message: 'hi', 'a/b': { '~x': 1 }, list: [1, 2, 3] } }

  it('reads values, escaped keys and array elements', () => {
    expect(getAt(node, '/payload/message')).toBe('hi')
    expect(getAt(node, '/payload/a~1b/~0x')).toBe(1)
    expect(getAt(node, '/payload/list/1')).toBe(2)
    expect(getAt(node, '/payload/missing/deeper')).toBeUndefined()
    expect(parsePointer(childPointer('/payload', 'a/b~'))).toEqual(['payload', 'a/b~'])
  })

  it('writes a copy, creating objects on the way, and leaves the original as it was', () => {
    const next = setAt(node, '/payload/options/level', 'info') as any
    expect(next.payload.options).toEqual({ level: 'info' })
    expect(next.payload.list).toBe(node.payload.list)
    expect((node.payload as any).options).toBeUndefined()
  })

  it('removes a key or an array element when the value is undefined, and appends with -', () => {
    expect((setAt(node, '/payload/message', undefined) as any).payload).not.toHaveProperty('message')
    expect((setAt(node, '/payload/list/0', undefined) as any).payload.list).toEqual([2, 3])
    expect((setAt(node, '/payload/list/-', 4) as any).payload.list).toEqual([1, 2, 3, 4])
  })
})

describe('the form of a payload schema', () => {
  const schema = json(
    Type.Object({
      channelId: Type.String({ 'x-dynamic-options': true }),
      message: Type.String({ description: 'what to say' }),
      level: Type.Optional(Type.Union([Type.Literal('info'), Type.Literal('warn')])),
      count: Type.Optional(Type.Integer({ minimum: 1 })),
      ratio: Type.Optional(Type.Number()),
      urgent: Type.Optional(Type.Boolean()),
      tags: Type.Optional(Type.Array(Type.String())),
      retry: Type.Optional(Type.Object({ times: Type.Integer() })),
      headers: Type.Optional(Type.Record(Type.String(), Type.String())),
      nickname: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      target: Type.Union([
        Type.Object({ kind: Type.Literal('email'), address: Type.String() }),
        Type.Object({ kind: Type.Literal('webhook'), url: Type.String() }),
      ]),
      condition: Condition(),
    }),
  )
  const fields = objectFields(schema, '/payload')
  const byKey = Object.fromEntries(fields.map((f) => [f.key, f]))

  it('gives each property the widget its type needs, at its pointer into the node', () => {
    expect(fields.map((f) => [f.pointer, f.kind])).toEqual([
      ['/payload/channelId', 'string'],
      ['/payload/message', 'string'],
      ['/payload/target', 'union'],
      ['/payload/condition', 'condition'],
      ['/payload/level', 'enum'],
      ['/payload/count', 'integer'],
      ['/payload/ratio', 'number'],
      ['/payload/urgent', 'boolean'],
      ['/payload/tags', 'array'],
      ['/payload/retry', 'object'],
      ['/payload/headers', 'json'],
      ['/payload/nickname', 'string'],
    ])
  })

  it('marks required and dynamic fields, lists the choices and keeps descriptions', () => {
    expect(byKey.message.required).toBe(true)
    expect(byKey.level.required).toBe(false)
    expect(byKey.channelId.dynamic).toBe(true)
    expect(byKey.level.choices).toEqual(['info', 'warn'])
    expect(byKey.message.description).toBe('what to say')
    expect(labelOf('channelId')).toBe('Channel id')
    expect(objectFields(byKey.retry.schema, byKey.retry.pointer)[0].pointer).toBe('/payload/retry/times')
  })

  it('picks the union variant a value fits and starts a picked variant with its shape', () => {
    const variants = byKey.target.variants!
    expect(variants.map(variantLabel)).toEqual(['kind: email', 'kind: webhook'])
    expect(variantFor(variants, { kind: 'webhook', url: 'https://x' })).toBe(1)
    expect(variantFor(variants, { kind: 'email', address: 'a@b' })).toBe(0)
    expect(emptyValue(variants[1])).toEqual({ kind: 'webhook', url: '' })
    expect(fieldOf(variants[1], '/payload/target', 'target', true).kind).toBe('object')
  })
})

describe('problems on their fields', () => {
  const schema = json(Type.Object({ message: Type.String(), condition: Condition(), tags: Type.Array(Type.String()) }))
  const fields = objectFields(schema, '/payload')
  const node = { type: 'if', payload: { tags: ['a', 'b'] } }
  const problems = [
    { pointer: '/payload/message', message: 'required' },
    { pointer: '/payload/condition/$and/0', message: 'unknown operator' },
    { pointer: '/payload/tags/1', message: 'too long' },
    { pointer: '/children', message: 'no such node' },
  ]

  it('shows a problem on the field it points at, and a whole-value field the problems inside it', () => {
    expect(problemsOf(fields[0], problems).map((p) => p.message)).toEqual(['required'])
    expect(problemsOf(fields[1], problems).map((p) => p.message)).toEqual(['unknown operator'])
  })

  it('sums up the problems no field shows', () => {
    expect(otherProblems(fields, node, problems).map((p) => p.pointer)).toEqual(['/children'])
  })
})

describe('the rows of a condition', () => {
  const condition = { $or: [{ '{{root.result.body.amount}}': { $gt: 100 } }, { '{{x.result}}': { $eq: 'yes' } }] }

  it('reads a flat condition as rows and writes it back unchanged', () => {
    const rows = conditionRows(condition)!
    expect(rows.mode).toBe('$or')
    expect(rows.rows[0]).toEqual({ left: '{{root.result.body.amount}}', op: '$gt', operand: 100 })
    expect(conditionOf(rows)).toEqual(condition)
    expect(conditionRows(undefined)).toEqual({ mode: '$and', rows: [] })
  })

  it('leaves a nested condition to the JSON editor', () => {
    expect(conditionRows({ $and: [{ $or: [] }] })).toBeUndefined()
  })

  it('types operands as JSON when they parse and keeps text otherwise', () => {
    expect(parseOperand('100')).toBe(100)
    expect(parseOperand('["DE","FR"]')).toEqual(['DE', 'FR'])
    expect(parseOperand('hello')).toBe('hello')
    expect(operandText('150')).toBe('"150"')
    expect(parseOperand(operandText('150'))).toBe('150')
    expect(operandText('hello')).toBe('hello')
  })
})

describe('renaming a node', () => {
  it('accepts letters, digits, _ and - and refuses anything else with a reason', () => {
    expect(renameProblem('send-mail_2')).toBeUndefined()
    expect(renameProblem('send mail')).toContain('letters, digits')
    expect(renameProblem('')).toContain('letters, digits')
    expect(renameProblem('__proto__')).toContain('reserved')
  })
})

describe("a field's name for its plugin's option loader", () => {
  it('is the top-level key, or the path through objects and array items', () => {
    const node = { type: 'x', payload: { status: 'a', target: { board: 'b' }, routes: [{ channel: 'c' }] } }
    expect(optionKeyOf(node, '/payload/status')).toBe('status')
    expect(optionKeyOf(node, '/payload/target/board')).toBe('target.board')
    expect(optionKeyOf(node, '/payload/routes/0/channel')).toBe('routes[].channel')
    // An item not written yet: its index still names an item.
    expect(optionKeyOf({ type: 'x', payload: {} }, '/payload/routes/3/channel')).toBe('routes[].channel')
  })
})
