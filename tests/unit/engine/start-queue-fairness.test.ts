/** The executor's start queue takes organizations in turn: a flood from one never holds another back. */
import { describe, expect, it } from 'bun:test'
import { createStartQueue } from '../../../runtime/engine/start-queue.ts'

describe('the start queue across organizations', () => {
  it("starts all of B's 10 runs before A's 2,000 queued runs have moved by 200", () => {
    const queue = createStartQueue()
    for (let i = 0; i < 2_000; i++) queue.add({ runId: `a${i}`, organizationId: 'A' })
    for (let i = 0; i < 10; i++) queue.add({ runId: `b${i}`, organizationId: 'B' })
    let fromA = 0
    let fromB = 0
    while (fromB < 10) {
      const next = queue.next()!
      if (next.organizationId === 'A') fromA++
      else fromB++
    }
    expect(fromA).toBeLessThanOrEqual(200)
    expect(queue.backlog().of('A')).toBe(2_000 - fromA)
  })

  it('keeps each organization first in first out, and loses nothing', () => {
    const queue = createStartQueue()
    for (let i = 0; i < 50; i++) queue.add({ runId: `r${i}`, organizationId: i % 3 === 0 ? 'A' : 'B' })
    queue.add({ runId: 'recovered' })
    const out: string[] = []
    for (let item = queue.next(); item; item = queue.next()) out.push(item.runId)
    expect(out).toHaveLength(51)
    const order = (prefix: (id: string) => boolean) => out.filter(prefix).map((id) => Number(id.slice(1)))
    const a = order((id) => id !== 'recovered' && Number(id.slice(1)) % 3 === 0)
    expect(a).toEqual([...a].sort((x, y) => x - y))
    const b = order((id) => id !== 'recovered' && Number(id.slice(1)) % 3 !== 0)
    expect(b).toEqual([...b].sort((x, y) => x - y))
    expect(queue.length).toBe(0)
  })
})

describe('the start queue by priority', () => {
  const at = () => {
    let now = 0
    return { now: () => now, move: (ms: number) => (now += ms) }
  }

  it('starts the higher priority first among runs of one organization', () => {
    const clock = at()
    const queue = createStartQueue(clock.now)
    queue.add({ runId: 'low', organizationId: 'A', priority: -5 })
    queue.add({ runId: 'plain', organizationId: 'A' })
    queue.add({ runId: 'high', organizationId: 'A', priority: 50 })
    expect([queue.next()!.runId, queue.next()!.runId, queue.next()!.runId]).toEqual(['high', 'plain', 'low'])
  })

  it('never starves a low priority run under a stream of high-priority ones: one step per second waited', () => {
    const clock = at()
    const queue = createStartQueue(clock.now)
    queue.add({ runId: 'low', organizationId: 'A', priority: -100 })
    let starts = 0
    for (;;) {
      clock.move(1_000)
      queue.add({ runId: `high${starts}`, organizationId: 'A', priority: 100 })
      starts++
      if (queue.next()!.runId === 'low') break
    }
    // It waited for the 200 steps between −100 and 100, one a second, and no longer.
    expect(starts).toBeLessThanOrEqual(201)
    expect(starts).toBeGreaterThan(150)
  })
})
