/**
 * Expressions in the node panel: completion of roots and fields from the last run or the result
 * schemas, the preview against the last run, and the references that cannot resolve.
 */
import { describe, expect, it } from 'bun:test'
import { completeAt } from '../../../console/src/editor/panel/completion.ts'
import { previewOf, previewText, referenceWarnings } from '../../../console/src/editor/panel/preview.ts'
import type { ExpressionScope } from '../../../console/src/editor/panel/scope.ts'

const triggerSchema = {
  type: 'object',
  properties: {
    type: { type: 'string' },
    body: { type: 'object', properties: { amount: { type: 'number' }, customer: { type: 'string' } } },
    headers: { type: 'object' },
    receivedAt: { type: 'string' },
  },
}
const fetchSchema = { type: 'object', properties: { status: { type: 'integer' }, body: {} } }

const noRun: ExpressionScope = {
  upstream: [
    { id: 'start', type: 'manual', resultSchema: triggerSchema },
    { id: 'fetch-order', type: 'http-request', resultSchema: fetchSchema },
  ],
}
const withRun: ExpressionScope = {
  ...noRun,
  lastRun: {
    id: 'run_1',
    triggerEvent: { type: 'manual', body: { amount: 150, customer: 'ada', lines: [{ sku: 'A' }] } },
    nodes: {
      start: { status: 'success', result: { type: 'manual', body: { amount: 150 } } },
      'fetch-order': { status: 'success', result: { status: 200, body: { id: 'o1', total: 99 } } },
    },
  },
}

/** The labels offered with the cursor at the end of `text`. */
const labels = (text: string, scope: ExpressionScope) =>
  completeAt(text, text.length, scope)?.candidates.map((c) => c.label)

describe('completion inside {{ … }}', () => {
  it('offers the upstream node ids and the fixed roots right after {{', () => {
    const offered = labels('Total: {{', noRun)!
    expect(offered).toContain('fetch-order')
    expect(offered).toContain('start')
    for (const root of ['$trigger', '$props', '$vars', 'root']) expect(offered).toContain(root)
  })

  it('offers nothing outside an expression', () => {
    expect(completeAt('plain text', 5, noRun)).toBeUndefined()
    expect(completeAt('{{root}} after', 12, noRun)).toBeUndefined()
  })

  it('completes the word being typed from where it starts', () => {
    const found = completeAt('{{fet', 5, noRun)!
    expect(found.from).toBe(2)
    expect(found.candidates.map((c) => c.label)).toContain('fetch-order')
  })

  it('takes fields from the result schema when there is no run', () => {
    expect(labels('{{root.', noRun)).toEqual(['result', 'input', 'payload', 'status', 'error', 'branch'])
    expect(labels('{{root.result.body.', noRun)).toEqual(['amount', 'customer'])
    expect(labels('{{$trigger.', noRun)).toEqual(['type', 'body', 'headers', 'receivedAt'])
    expect(labels('{{fetch-order.result.', noRun)).toEqual(['status', 'body'])
  })

  it('takes fields from the last run when there is one, with what they held', () => {
    expect(labels('{{root.result.body.', withRun)).toEqual(['amount', 'customer', 'lines'])
    expect(labels('{{fetch-order.result.body.', withRun)).toEqual(['id', 'total'])
    const amount = completeAt('{{root.result.body.', 19, withRun)!.candidates[0]
    expect(amount.detail).toBe('150')
    expect(labels('{{root.result.body.lines.', withRun)).toEqual(['0', 'length'])
  })

  it("uses an upstream node's last result when the run is not given", () => {
    const scope: ExpressionScope = { upstream: [{ id: 'calc', type: 'code-transform', lastResult: { sum: 3 } }] }
    expect(labels('{{calc.result.', scope)).toEqual(['sum'])
  })

  it('inserts keys that are not plain segments in brackets', () => {
    const scope: ExpressionScope = { upstream: [{ id: 'x', type: 't', lastResult: { 'a b': 1 } }] }
    expect(completeAt('{{x.result.', 11, scope)!.candidates[0].apply).toBe("['a b']")
  })
})

describe('the preview of an expression', () => {
  it('says "no run yet" without a run and nothing for plain text', () => {
    expect(previewOf('{{root.result.body.amount}}', noRun)).toEqual({ kind: 'no-run' })
    expect(previewOf('just text', withRun)).toEqual({ kind: 'plain' })
  })

  it('evaluates against the last run, keeping the type of a whole expression', () => {
    expect(previewOf('{{root.result.body.amount}}', withRun)).toEqual({ kind: 'value', value: 150 })
    expect(previewOf('{{$trigger.body.customer}}', withRun)).toEqual({ kind: 'value', value: 'ada' })
    expect(previewOf('Order {{fetch-order.result.body.id}} of {{root.result.body.customer}}', withRun)).toEqual({
      kind: 'value',
      value: 'Order o1 of ada',
    })
    expect(previewOf("{{root.result.body.missing || 'none'}}", withRun)).toEqual({ kind: 'value', value: 'none' })
  })

  it('says why an expression does not parse', () => {
    const preview = previewOf('{{root.result.}}', withRun)
    expect(preview.kind).toBe('error')
  })

  it('shows values as JSON, cut short', () => {
    expect(previewText('ada')).toBe('"ada"')
    expect(previewText(undefined)).toContain('nothing at this path')
    expect(previewText('x'.repeat(1000), 10)).toHaveLength(11)
  })
})

describe('references checked before running', () => {
  it('flags a root that is no upstream node', () => {
    expect(referenceWarnings('{{nope.result}}', noRun)).toEqual([
      '{{nope.result}}: "nope" is not a node that runs before this one',
    ])
  })

  it('flags a field the result schema does not have', () => {
    expect(referenceWarnings('{{root.result.body.amunt}}', noRun)).toEqual([
      '{{root.result.body.amunt}}: "amunt" is not a field of root.result.body',
    ])
    expect(referenceWarnings('{{fetch-order.result.statuss}}', noRun)).toHaveLength(1)
  })

  it('accepts fields the schema or the last result has, and anything below an open value', () => {
    expect(referenceWarnings('{{root.result.body.amount}} {{fetch-order.result.body.anything.deep}}', noRun)).toEqual(
      [],
    )
    expect(referenceWarnings('{{root.result.body.lines.0.sku}}', withRun)).toEqual([])
    expect(referenceWarnings('{{$vars.x}} {{$item.y}}', noRun)).toEqual([])
  })
})
