import { describe, expect, it } from 'bun:test'
import { subjectMatcher } from '../../core/ports/bus.ts'

const subjectMatches = (pattern: string, subject: string) => subjectMatcher(pattern)(subject)

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

  it('compile once into a test of subjects', () => {
    const cases: Array<[string, string, boolean]> = [
      ['evt.>', 'evt.o.w.r', true],
      ['evt.>', 'evt.o', true],
      ['evt.>', 'evt', false],
      ['evt.>', 'evtx.o', false],
      ['evt.o.>', 'evt.o.w.r', true],
      ['evt.o.>', 'evt.p.w.r', false],
      ['a.*.c', 'a.x.c', true],
      ['a.*.c', 'a.x.c.d', false],
      ['a.*.>', 'a.x.c', true],
      ['a.*.>', 'a.x', false],
      ['a.b.c', 'a.b.c', true],
      ['a.b.c', 'a.b.cd', false],
      ['*', 'a', true],
      ['*', 'a.b', false],
      ['>', 'a.b', true],
    ]
    for (const [pattern, subject, expected] of cases)
      expect([pattern, subject, subjectMatcher(pattern)(subject)]).toEqual([pattern, subject, expected])
  })
})
