/**
 * The sandbox's limits as the engine inside a worker enforces them: time, memory, stack, input and
 * output. The pool's own clock is a manual one that never moves, so its hard timeout never ends
 * a call here: whatever ends one, the engine ended it, and no test waits for or measures time.
 */
import { describe, expect, it } from 'bun:test'
import { createManualClock } from '../../../core/ports/clock.ts'
import { acquireEngine, WASM_MEMORY_CEILING_BYTES } from '../../../runtime/sandbox/quickjs.ts'
import { createSandbox, DEFAULT_LIMITS } from '../../../runtime/sandbox/index.ts'
import { resolveLimits } from '../../../runtime/sandbox/limits.ts'
import { runTransformOn } from '../../../runtime/sandbox/run-transform.ts'
import { failureOf } from './expect-failure.ts'

// Calls not about time get a generous deadline, so that a loaded machine never turns a slow
// call into a timeout; those about time say theirs.
const sandbox = createSandbox({ timeoutMs: 60_000 }, { clock: createManualClock() })
const fast = { timeoutMs: 200 }
// Memory bombs get a long deadline so that the memory limit, not the clock, ends them.
const patient = { timeoutMs: 20_000 }
/** Longer than any test runs: a call with it that ends did not end at its deadline. */
const NEVER = { timeoutMs: 10 * 60 * 1000 }

describe('sandbox time limit', () => {
  it('ends an infinite loop with a timeout at its own deadline, inside the engine', async () => {
    const error = await failureOf(sandbox.runTransform('function transform() { while (true) {} }', null, fast))
    expect(error.kind).toBe('timeout')
    expect(error.message).toContain('200 ms')
  })

  it('ends an infinite loop even when the code catches the interruption', async () => {
    const code = 'function transform() { for (;;) { try { while (true) {} } catch (e) {} } }'
    expect((await failureOf(sandbox.runTransform(code, null, fast))).kind).toBe('timeout')
  })

  it('ends an infinite async loop with a timeout', async () => {
    const code = 'async function transform() { while (true) await null }'
    expect((await failureOf(sandbox.runTransform(code, null, fast))).kind).toBe('timeout')
  })

  it('reports a promise that can never settle as a timeout, without waiting for the deadline', async () => {
    const code = 'function transform() { return new Promise(() => {}) }'
    const error = await failureOf(sandbox.runTransform(code, null, NEVER))
    expect(error.kind).toBe('timeout')
    expect(error.message).toContain('never settle')
  })

  it('counts top-level code against the same deadline', async () => {
    const error = await failureOf(sandbox.runTransform('while (true) {}\nfunction transform() {}', null, fast))
    expect(error.kind).toBe('timeout')
  })
})

describe('sandbox memory limit', () => {
  it('ends a memory bomb with a memory error, and the host keeps working', async () => {
    const code = 'function transform() { const a = []; while (true) a.push("x".repeat(1000) + a.length) }'
    const error = await failureOf(sandbox.runTransform(code, null, patient))
    expect(error.kind).toBe('memory')
    expect(error.message).toContain('32 MiB')
    const { output } = await sandbox.runTransform('function transform(input) { return input }', { still: 'fine' })
    expect(output).toEqual({ still: 'fine' })
  })

  it('ends bombs of objects, arrays and typed arrays with memory errors', async () => {
    const bombs = [
      'const a = []; while (true) a.push({ n: a.length })',
      'const a = []; while (true) a.push(new Array(10000).fill(1))',
      'const a = []; while (true) a.push(new Uint8Array(1 << 20))',
      'return "x".repeat(64 * 1024 * 1024)',
    ]
    for (const bomb of bombs) {
      const error = await failureOf(sandbox.runTransform(`function transform() { ${bomb} }`, null, patient))
      expect(error.kind).toBe('memory')
    }
  })

  it('honours a smaller memory limit', async () => {
    // About 12 MiB: well inside the default 32 MiB, three times a 4 MiB limit (100,000 pairs sat
    // right at 4 MiB and passed or failed by chance).
    const code =
      'function transform() { const a = []; for (let i = 0; i < 300000; i++) a.push([i, i + 1]); return a.length }'
    expect((await sandbox.runTransform(code, null, patient)).output).toBe(300000)
    const error = await failureOf(sandbox.runTransform(code, null, { ...patient, memoryBytes: 4 * 1024 * 1024 }))
    expect(error.kind).toBe('memory')
  })

  it('never grows the shared WASM memory past its ceiling', async () => {
    // In process, on the synchronous run the workers use, so the engine's memory can be read.
    const code = 'function transform() { const a = []; while (true) a.push(new Uint8Array(8 << 20)) }'
    const engine = await acquireEngine()
    const error = await failureOf(Promise.resolve().then(() => runTransformOn(engine, code, 'null', DEFAULT_LIMITS)))
    expect(error.kind).toBe('memory')
    expect(engine.memory.buffer.byteLength).toBeLessThanOrEqual(WASM_MEMORY_CEILING_BYTES)
  })

  it('ends deep recursion with a stack error instead of crashing the host', async () => {
    const code = 'function transform() { function down(n) { return down(n + 1) + 1 } return down(0) }'
    const error = await failureOf(sandbox.runTransform(code, null))
    expect(error.kind).toBe('memory')
    expect(error.message).toContain('stack')
    expect((await sandbox.runTransform('function transform() { return "after" }', null)).output).toBe('after')
  })

  it('recovers when QuickJS recursion in C exhausts the host stack', async () => {
    const code = 'function transform() { const n = 50000; return JSON.parse("[".repeat(n) + "]".repeat(n)) }'
    const error = await failureOf(sandbox.runTransform(code, null))
    expect(error.kind).toBe('memory')
    expect(error.message).toContain('stack')
    expect((await sandbox.runTransform('function transform(input) { return input }', 'after')).output).toBe('after')
  })
})

describe('sandbox input and output limits', () => {
  it('refuses input larger than 1 MiB of JSON', async () => {
    const error = await failureOf(sandbox.runTransform('function transform() {}', 'x'.repeat(1024 * 1024)))
    expect(error.kind).toBe('input')
    expect(error.message).toContain('1048576')
  })

  it('counts input size in UTF-8 bytes, not characters', async () => {
    const input = 'é'.repeat(600_000)
    expect(JSON.stringify(input).length).toBeLessThan(1024 * 1024)
    expect((await failureOf(sandbox.runTransform('function transform() {}', input))).kind).toBe('input')
  })

  it('refuses input that is not JSON-serialisable or nests too deeply', async () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    let deep: unknown = []
    for (let i = 0; i < 2000; i++) deep = [deep]
    for (const input of [cyclic, 10n, deep]) {
      expect((await failureOf(sandbox.runTransform('function transform() {}', input))).kind).toBe('input')
    }
  })

  it('refuses output larger than 1 MiB of JSON', async () => {
    const code = 'function transform() { return "x".repeat(2 * 1024 * 1024) }'
    const error = await failureOf(sandbox.runTransform(code, null))
    expect(error.kind).toBe('output')
    expect(error.message).toContain('1048576')
  })

  it('honours smaller input and output limits', async () => {
    const code = 'function transform(input) { return input + input }'
    const limits = { maxInputBytes: 20, maxOutputBytes: 20 }
    expect((await sandbox.runTransform(code, 'abcd', limits)).output).toBe('abcdabcd')
    expect((await failureOf(sandbox.runTransform(code, 'x'.repeat(19), limits))).kind).toBe('input')
    expect((await failureOf(sandbox.runTransform(code, 'x'.repeat(10), limits))).kind).toBe('output')
  })
})

describe('sandbox limits', () => {
  it('default to 1 s, 32 MiB of memory, 512 KiB of stack and 1 MiB of JSON each way', () => {
    expect(DEFAULT_LIMITS).toEqual({
      timeoutMs: 1000,
      memoryBytes: 32 * 1024 * 1024,
      stackBytes: 512 * 1024,
      maxInputBytes: 1024 * 1024,
      maxOutputBytes: 1024 * 1024,
    })
  })

  it('merge per-call overrides over the sandbox defaults over DEFAULT_LIMITS', () => {
    const base = resolveLimits(DEFAULT_LIMITS, { timeoutMs: 500 })
    expect(resolveLimits(base, { memoryBytes: 8 * 1024 * 1024, stackBytes: undefined })).toEqual({
      ...DEFAULT_LIMITS,
      timeoutMs: 500,
      memoryBytes: 8 * 1024 * 1024,
    })
  })

  it('are refused with a RangeError when out of bounds', async () => {
    expect(() => createSandbox({ memoryBytes: 1024 })).toThrow(RangeError)
    expect(() => createSandbox({ memoryBytes: 1024 * 1024 * 1024 })).toThrow(RangeError)
    expect(() => createSandbox({ stackBytes: 0 })).toThrow(RangeError)
    expect(sandbox.runTransform('function transform() {}', null, { timeoutMs: Number.NaN })).rejects.toThrow(RangeError)
    expect(sandbox.runTransform('function transform() {}', null, { timeoutMs: 0 })).rejects.toThrow(RangeError)
  })
})
