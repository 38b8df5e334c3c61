import { describe, expect, it } from 'bun:test'
import { subjectMatches } from '../../core/ports/bus.ts'

describe('subject patterns', () => {
  it('match NATS-style wildcards', () => {
    expect(subjectMatches('a.b.c', 'a.b.c')).toBe(true)
    expect(subjectMatches('a.*.c', 'a.b.c')).toBe(true)
    expect(subjectMatches('a.*', 'a.b.c')).toBe(false)
    expect(subjectMatches('a.>', 'a.b.c')).toBe(true)
    expect(subjectMatches('a.>', 'a')).toBe(false)
    expect(subjectMatches('>', 'anything.at.all')).toBe(true)
    expect(subjectMatches('a.b', 'a.b.c')).toBe(false)
    expect(subjectMatches('a.b.c', 'a.b')).toBe(false)
  })
})
