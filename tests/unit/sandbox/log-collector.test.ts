import { describe, expect, it } from 'bun:test'
import { createLogCollector, TRUNCATION_MARKER } from '../../../runtime/sandbox/log-collector.ts'

describe('log collector', () => {
  it('keeps lines in order while within budget', () => {
    const logs = createLogCollector({ maxLines: 3, maxBytes: 100 })
    expect(logs.add('a')).toBe(true)
    expect(logs.add('b')).toBe(true)
    expect(logs.lines()).toEqual(['a', 'b'])
  })

  it('drops lines past the line budget and ends with a marker', () => {
    const logs = createLogCollector({ maxLines: 2, maxBytes: 100 })
    logs.add('a')
    logs.add('b')
    expect(logs.add('c')).toBe(false)
    expect(logs.add('d')).toBe(false)
    expect(logs.lines()).toEqual(['a', 'b', TRUNCATION_MARKER])
  })

  it('cuts the line that crosses the byte budget and drops the rest', () => {
    const logs = createLogCollector({ maxLines: 10, maxBytes: 5 })
    expect(logs.add('abc')).toBe(true)
    expect(logs.add('défg')).toBe(false)
    expect(logs.add('h')).toBe(false)
    expect(logs.lines()).toEqual(['abc', 'd', TRUNCATION_MARKER])
  })

  it('returns a copy, so callers cannot change what was kept', () => {
    const logs = createLogCollector()
    logs.add('a')
    logs.lines().push('b')
    expect(logs.lines()).toEqual(['a'])
  })
})
