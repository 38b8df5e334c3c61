import { describe, expect, it } from 'bun:test'
import { BoundedMap } from '../../core/bounded-map.ts'
import { errorMessage } from '../../core/errors.ts'

describe('BoundedMap', () => {
  it('forgets the oldest entry past its bound, and replacing an entry forgets nothing', () => {
    const m = new BoundedMap<string, number>(2)
    m.set('a', 1).set('b', 2)
    m.set('a', 10)
    expect([...m]).toEqual([
      ['a', 10],
      ['b', 2],
    ])
    m.set('c', 3)
    expect([...m.keys()]).toEqual(['b', 'c'])
    expect(m.size).toBe(2)
  })
})

describe('errorMessage', () => {
  it('reads what anything thrown says', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom')
    expect(errorMessage(new TypeError(''))).toBe('TypeError')
    expect(errorMessage('plain')).toBe('plain')
    expect(errorMessage({ code: 7 })).toBe('{"code":7}')
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(errorMessage(cyclic)).toBe('[object Object]')
  })
})
