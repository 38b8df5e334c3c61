import { describe, expect, it } from 'bun:test'
import { createIds } from '../../core/ids.ts'
import { createManualClock, systemClock } from '../../core/ports/clock.ts'

describe('ids', () => {
  it('are prefixed, 26 characters of Crockford base32 after the prefix', () => {
    const id = createIds(systemClock).next('run')
    expect(id).toMatch(/^run_[0-9A-HJKMNP-TV-Z]{26}$/)
  })

  it('sort in creation order, also within one millisecond', () => {
    const clock = createManualClock()
    const ids = createIds(clock)
    const made: string[] = []
    for (let i = 0; i < 1000; i++) {
      if (i % 100 === 0) clock.advance(1)
      made.push(ids.next('wf'))
    }
    expect([...made].sort()).toEqual(made)
    expect(new Set(made).size).toBe(1000)
  })

  it('keep their order when the clock steps back', () => {
    const clock = createManualClock(10_000)
    const ids = createIds(clock)
    const a = ids.next('key')
    clock.set(5_000)
    const b = ids.next('key')
    expect(b > a).toBe(true)
  })

  it('are unguessable: 80 random bits differ between generators', () => {
    const clock = createManualClock()
    const a = createIds(clock).next('org')
    const b = createIds(clock).next('org')
    expect(a.slice(0, 14)).toBe(b.slice(0, 14))
    expect(a).not.toBe(b)
  })
})
