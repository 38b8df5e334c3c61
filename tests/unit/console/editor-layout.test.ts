/**
 * Where the editor draws nodes: a node a person moved stays where they put it, the others keep
 * their automatic places, and a change of the graph's shape lays it out again.
 */
import { describe, expect, it } from 'bun:test'
import { layout } from '../../../console/src/editor/layout.ts'
import { connect, type Doc, move } from '../../../console/src/editor/model.ts'

const doc: Doc = {
  definition: {
    triggerNodeIds: ['root'],
    nodes: {
      root: { type: 'manual', children: ['a', 'b'] },
      a: { type: 'log', payload: { message: 'a' } },
      b: { type: 'log', payload: { message: 'b' } },
    },
  } as Doc['definition'],
  uiMetadata: {},
}

describe('the editor layout', () => {
  it('lays nodes out left to right from the trigger', () => {
    const at = layout(doc)
    expect(at.a.x).toBeGreaterThan(at.root.x)
    expect(at.b.x).toBe(at.a.x)
    expect(at.b.y).not.toBe(at.a.y)
  })

  it('keeps a moved node where it was put and the others where they were', () => {
    const before = layout(doc)
    const after = layout(move(doc, { a: { x: 900, y: 700 } }))
    expect(after.a).toEqual({ x: 900, y: 700 })
    expect(after.root).toEqual(before.root)
    expect(after.b).toEqual(before.b)
  })

  it('lays the graph out again when an edge is added', () => {
    const before = layout(doc)
    const after = layout(connect(doc, 'a', 'b'))
    expect(after.b.x).toBeGreaterThan(before.b.x)
  })
})
