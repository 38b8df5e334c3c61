/**
 * One test per rule of the definition check (runtime/definition/check.ts), each asserting the
 * detail's path and message, against the built-in plugins.
 */
import { describe, expect, it } from 'bun:test'
import { createRegistry } from '../../core/plugin/registry.ts'
import { BUILT_IN_PLUGINS } from '../../plugins/index.ts'
import { createDefinitionChecker } from '../../runtime/definition/check.ts'

const checker = createDefinitionChecker(createRegistry(BUILT_IN_PLUGINS))
const log = (message = 'x', extra: Record<string, unknown> = {}) => ({ type: 'log', payload: { message }, ...extra })
const errorsOf = (definition: unknown) => checker.check(definition as never).errors
const single = (nodes: Record<string, unknown>) => ({
  triggerNodeIds: ['root'],
  nodes: { root: { type: 'manual', children: ['a'] }, ...nodes },
})

function expectRule(definition: unknown, path: string, message: string | RegExp) {
  const errors = errorsOf(definition)
  const found = errors.find(
    (e) => e.path === path && (typeof message === 'string' ? e.message.includes(message) : message.test(e.message)),
  )
  expect({ path, message: String(message), found: Boolean(found), errors }).toMatchObject({
    path,
    message: String(message),
    found: true,
  })
}

describe('the definition check, rule by rule', () => {
  it('accepts a well-formed definition', () => {
    expect(errorsOf(single({ a: log() }))).toEqual([])
  })

  it('needs nodes, at least one, at most 1000', () => {
    expectRule({}, '/nodes', 'is required: an object of node id to node')
    expectRule({ nodes: [] }, '/nodes', 'is required: an object of node id to node')
    expectRule({ triggerNodeIds: ['root'], nodes: {} }, '/nodes', 'must contain at least one node')
    const many: Record<string, unknown> = { root: { type: 'manual' } }
    for (let i = 0; i < 1001; i++) many[`n${i}`] = log()
    expectRule({ triggerNodeIds: ['root'], nodes: many }, '/nodes', 'must contain at most 1000 nodes')
  })

  it('checks the node-id format and the ids nodes reference', () => {
    expectRule(single({ a: log(), 'b c': log() }), '/nodes/b c', 'a node id is 1 to 64 letters, digits')
    expectRule(
      single({ a: log('x', { children: ['__proto__'] }) }),
      '/nodes/a/children/0',
      'not __proto__, constructor or prototype',
    )
    expectRule(single({ a: log('x', { loopBody: [7] }) }), '/nodes/a/loopBody/0', 'a node id is 1 to 64 letters')
  })

  it('applies the triggerNodeIds rules', () => {
    expectRule(
      { nodes: { start: { type: 'manual' } } },
      '/triggerNodeIds',
      'is required unless the single trigger node is named "root"',
    )
    expectRule(
      { triggerNodeIds: ['start'], nodes: { start: { type: 'manual' } } },
      '/triggerNodeIds/0',
      'a single-trigger workflow lists the literal "root"',
    )
    expectRule(
      { triggerNodeIds: ['root', 'b'], nodes: { root: { type: 'manual' }, b: { type: 'manual' } } },
      '/triggerNodeIds/0',
      'a multi-trigger workflow must not use "root"',
    )
    expectRule(
      { triggerNodeIds: ['a', 'a'], nodes: { a: { type: 'manual' } } },
      '/triggerNodeIds/1',
      '"a" is listed twice',
    )
    expectRule(
      { triggerNodeIds: ['a', 'b'], nodes: { a: { type: 'manual' } } },
      '/triggerNodeIds/1',
      '"b" is not a node of this definition',
    )
  })

  it('reserves "root" for the trigger node', () => {
    expectRule(
      {
        triggerNodeIds: ['a', 'b'],
        nodes: { a: { type: 'manual', children: ['root'] }, b: { type: 'manual' }, root: log() },
      },
      '/nodes/root',
      '"root" is reserved for the trigger node',
    )
  })

  it('knows every type, and tells a trigger from an action', () => {
    expectRule(
      { triggerNodeIds: ['root'], nodes: { root: { type: 'log' } } },
      '/nodes/root/type',
      '"log" is an action, not a trigger type',
    )
    expectRule(
      { triggerNodeIds: ['root'], nodes: { root: { type: 'no-such-trigger' } } },
      '/nodes/root/type',
      'unknown trigger type "no-such-trigger"',
    )
    expectRule(
      single({ a: { type: 'manual' } }),
      '/nodes/a/type',
      '"manual" is a trigger type; list this node in triggerNodeIds',
    )
    expectRule(single({ a: { type: 'no-such-action' } }), '/nodes/a/type', 'unknown node type "no-such-action"')
  })

  it('gives a loopBody to loop nodes only, and to every loop node', () => {
    expectRule(
      single({ a: log('x', { loopBody: ['b'] }), b: log() }),
      '/nodes/a/loopBody',
      'only a loop node (for-each) has a loopBody',
    )
    expectRule(
      single({ a: { type: 'for-each', payload: { array: [1] } } }),
      '/nodes/a/loopBody',
      'a loop node needs a loopBody',
    )
  })

  it('checks children: they exist, are not triggers, have one parent', () => {
    expectRule(
      single({ a: log('x', { children: ['ghost'] }) }),
      '/nodes/a/children/0',
      '"ghost" is not a node of this definition',
    )
    expectRule(
      { triggerNodeIds: ['a', 'b'], nodes: { a: { type: 'manual', children: ['b'] }, b: { type: 'manual' } } },
      '/nodes/a/children/0',
      '"b" is a trigger node and cannot be a child',
    )
    expectRule(
      single({ a: log('x', { children: ['c'] }), b: log('x', { children: ['c'] }), c: log() }),
      '/nodes/c',
      'has more than one parent',
    )
  })

  it('checks branches: required and known under a branching node, absent elsewhere', () => {
    const condition = { condition: { $and: [{ '{{root.result.body.n}}': { $gt: 1 } }] } }
    expectRule(
      single({ a: { type: 'if', payload: condition, children: ['b'] }, b: log() }),
      '/nodes/b/branch',
      'is required: a child of "a" names its branch (then or else)',
    )
    expectRule(
      single({ a: { type: 'if', payload: condition, children: ['b'] }, b: log('x', { branch: 'maybe' }) }),
      '/nodes/b/branch',
      '"maybe" is not a branch of "a" (then, else)',
    )
    expectRule(
      single({ a: log('x', { children: ['b'] }), b: log('x', { branch: 'then' }) }),
      '/nodes/b/branch',
      '"a" (log) has no branches',
    )
  })

  it('refuses cycles', () => {
    expectRule(
      {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'manual', children: ['a'] },
          a: log('x', { children: ['b'] }),
          b: log('x', { children: ['a'] }),
        },
      },
      '/nodes/a',
      /is part of a cycle: a → b → a|is part of a cycle/,
    )
  })

  it('bounds loop nesting', () => {
    const nodes: Record<string, unknown> = { root: { type: 'manual', children: ['l0'] } }
    for (let i = 0; i <= 11; i++)
      nodes[`l${i}`] = { type: 'for-each', payload: { array: [1] }, loopBody: [i < 11 ? `l${i + 1}` : 'leaf'] }
    nodes.leaf = log()
    expectRule({ triggerNodeIds: ['root'], nodes }, '/nodes/l11', 'loops nest more than 10 deep here')
    expect(errorsOf({ triggerNodeIds: ['root'], nodes }).some((e) => e.path === '/nodes/l9')).toBe(false)
  })

  it('checks expressions: references, variables and loop roots', () => {
    expectRule(
      single({ a: log('{{ghost.result}}') }),
      '/nodes/a/payload/message',
      'references "ghost", which is not a node of this definition',
    )
    expectRule(
      single({ a: log('{{b.result}}', { children: ['b'] }), b: log() }),
      '/nodes/a/payload/message',
      'references "b", which does not run before this node',
    )
    // Checked once the definition declares its variables.
    expectRule(
      { ...single({ a: log('{{$vars.missing}}') }), variableDefs: [{ name: 'known', type: 'number' }] },
      '/nodes/a/payload/message',
      '{{$vars.missing}} is not a declared variable',
    )
    expectRule(
      single({ a: log('{{$item}}') }),
      '/nodes/a/payload/message',
      '$item is only available inside a for-each loop body',
    )
    expectRule(single({ a: log('{{$nope.x}}') }), '/nodes/a/payload/message', 'unknown expression root "$nope"')
  })

  it('checks payloads against the action schema', () => {
    expectRule(single({ a: { type: 'log', payload: {} } }), '/nodes/a/payload/message', /./)
  })
})
