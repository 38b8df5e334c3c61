import { describe, expect, it } from 'bun:test'
import { createGuard, type GuardOptions } from '../../../runtime/sandbox/guard.ts'

const MiB = 1024 * 1024

function fakeGuard(overrides: Partial<GuardOptions> = {}) {
  const state = { now: 0, wasm: 16 * MiB, heap: MiB, samples: 0, sampleCostMs: 0 }
  const guard = createGuard({
    timeoutMs: 100,
    memoryBytes: 8 * MiB,
    wasmBytes: () => state.wasm,
    heapBytes: () => {
      state.samples++
      state.now += state.sampleCostMs
      return state.heap
    },
    now: () => state.now,
    ...overrides,
  })
  return { guard, state }
}

describe('run guard', () => {
  it('lets a run continue within its deadline and memory', () => {
    const { guard, state } = fakeGuard()
    state.now = 50
    expect(guard.check()).toBe(false)
    expect(guard.tripped()).toBeUndefined()
  })

  it('trips on timeout once the deadline has passed, and stays tripped', () => {
    const { guard, state } = fakeGuard()
    state.now = 101
    expect(guard.check()).toBe(true)
    expect(guard.tripped()).toBe('timeout')
    state.now = 0
    expect(guard.check()).toBe(true)
  })

  it('trips like a timeout once the run is cancelled, before its deadline', () => {
    let cancelled = false
    const { guard, state } = fakeGuard({ cancelled: () => cancelled })
    state.now = 10
    expect(guard.check()).toBe(false)
    cancelled = true
    expect(guard.check()).toBe(true)
    expect(guard.tripped()).toBe('timeout')
  })

  it('trips on memory when the WASM memory grows by more than the limit', () => {
    const { guard, state } = fakeGuard()
    state.wasm += 9 * MiB
    expect(guard.check()).toBe(true)
    expect(guard.tripped()).toBe('memory')
  })

  it('trips on memory when a heap sample exceeds the limit', () => {
    const { guard, state } = fakeGuard()
    state.heap = 9 * MiB
    state.now = 1
    expect(guard.check()).toBe(false)
    state.now = 5
    expect(guard.check()).toBe(true)
    expect(guard.tripped()).toBe('memory')
  })

  it('spaces heap samples at least ten times their cost apart', () => {
    const { guard, state } = fakeGuard({ timeoutMs: 10_000 })
    state.sampleCostMs = 2
    for (let t = 0; t <= 200; t++) {
      state.now = Math.max(state.now, t)
      guard.check()
    }
    expect(state.samples).toBeGreaterThan(5)
    expect(state.samples * state.sampleCostMs).toBeLessThanOrEqual(0.1 * state.now + state.sampleCostMs)
  })
})
