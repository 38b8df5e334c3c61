import { describe, expect, it } from 'bun:test'
import { createFifo } from '../../../runtime/engine/fifo.ts'

describe('the run queue', () => {
  it('hands items out in the order they came, across compactions', () => {
    const fifo = createFifo<number>()
    const out: number[] = []
    for (let i = 0; i < 5000; i++) {
      fifo.push(i)
      if (i % 3 === 0) out.push(fifo.shift()!)
    }
    while (fifo.length > 0) out.push(fifo.shift()!)
    expect(out).toEqual(Array.from({ length: 5000 }, (_, i) => i))
    expect(fifo.shift()).toBeUndefined()
  })

  it('is empty after clear', () => {
    const fifo = createFifo<string>()
    fifo.push('a')
    fifo.clear()
    expect(fifo.length).toBe(0)
    expect(fifo.shift()).toBeUndefined()
  })
})
