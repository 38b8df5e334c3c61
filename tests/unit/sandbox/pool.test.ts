import { afterAll, describe, expect, it } from 'bun:test'
import { createSandbox, SandboxError, type SandboxLimits } from '../../../runtime/sandbox/index.ts'
import { DEFAULT_LIMITS } from '../../../runtime/sandbox/limits.ts'
import { createWorkerPool, HARD_TIMEOUT_GRACE_MS, spawnSandboxWorker, type Job } from '../../../runtime/sandbox/pool.ts'
import { failureOf } from './expect-failure.ts'

const sandbox = createSandbox()
afterAll(() => sandbox.close())

const identity = 'function transform(input) { return input }'
const forever = 'function transform() { while (true) {} }'

/** A transform that keeps QuickJS busy for `ms`, returning when it started and ended. */
function busyFor(ms: number): string {
  return `function transform(input) {
    const started = Date.now(); while (Date.now() < started + ${ms}) {}
    return { input, started, ended: Date.now() }
  }`
}

async function timed<T>(call: Promise<T>): Promise<[T, number]> {
  const started = performance.now()
  const result = await call
  return [result, performance.now() - started]
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('sandbox worker pool', () => {
  it('keeps the caller’s event loop running while a transform computes', async () => {
    await sandbox.runTransform(identity, 'warm')
    const ticks: number[] = []
    const timer = setInterval(() => ticks.push(performance.now()), 10)
    const [{ output }, elapsed] = await timed(sandbox.runTransform(busyFor(800), 'done'))
    clearInterval(timer)
    expect(output).toMatchObject({ input: 'done' })
    expect(elapsed).toBeGreaterThanOrEqual(795)
    expect(ticks.length).toBeGreaterThan(40)
    const gaps = ticks.slice(1).map((tick, i) => tick - (ticks[i] as number))
    expect(Math.max(...gaps)).toBeLessThan(100)
  })

  it('ends calls stuck in slow built-ins within their deadline plus the grace period', async () => {
    // On the in-process run these overran a 300 ms limit by about 5 seconds.
    const stuck = [
      'const a = new Array(5e4).fill("abc"); for (;;) a.join(",")',
      'const s = "a".repeat(5e5); for (;;) s.indexOf("b")',
    ]
    for (const body of stuck) {
      const call = sandbox.runTransform(`function transform() { ${body} }`, null, { timeoutMs: 300 })
      const [error, elapsed] = await timed(failureOf(call))
      expect(error.kind).toBe('timeout')
      expect(error.message).toBe('transform did not finish within 300 ms')
      // Deadline plus the 500 ms grace, with room for a loaded machine; they once overran by 5 s.
      expect(elapsed).toBeLessThan(300 + 500 + 1_500)
    }
    expect((await sandbox.runTransform(identity, 'after')).output).toBe('after')
  })

  it('aborts a busy transform promptly with the signal’s reason, and keeps working', async () => {
    const controller = new AbortController()
    const call = sandbox.runTransform(forever, null, { timeoutMs: 10_000 }, controller.signal)
    await sleep(100)
    const reason = new Error('run cancelled')
    const [error, elapsed] = await timed(Promise.resolve(controller.abort(reason)).then(() => call).catch((e) => e))
    expect(error).toBe(reason)
    // Promptly: well before the 10 s timeout, with room for a loaded machine.
    expect(elapsed).toBeLessThan(2_000)
    expect((await sandbox.runTransform(identity, 'after')).output).toBe('after')
  })

  it('rejects at once when the signal is already aborted', async () => {
    const reason = new Error('too late')
    const error = await sandbox.runTransform(identity, 1, undefined, AbortSignal.abort(reason)).catch((e) => e)
    expect(error).toBe(reason)
  })

  it('takes an aborted call out of the queue, leaving the running one alone', async () => {
    const single = createSandbox({}, { workers: 1 })
    try {
      const controller = new AbortController()
      const running = single.runTransform(busyFor(200), 'first')
      const queued = single.runTransform(identity, 'second', undefined, controller.signal)
      controller.abort(new Error('not needed'))
      expect(((await queued.catch((e) => e)) as Error).message).toBe('not needed')
      expect((await running).output).toMatchObject({ input: 'first' })
    } finally {
      await single.close()
    }
  })

  it('runs at most `workers` calls at once and queues the rest in order', async () => {
    const pair = createSandbox({}, { workers: 2 })
    try {
      await Promise.all([pair.runTransform(identity, 0), pair.runTransform(identity, 1)])
      const calls = ['a', 'b', 'c'].map((input) => pair.runTransform(busyFor(300), input))
      type Span = { input: string; started: number; ended: number }
      const [a, b, c] = (await Promise.all(calls)).map(({ output }) => output as Span) as [Span, Span, Span]
      expect([a.input, b.input, c.input]).toEqual(['a', 'b', 'c'])
      expect(Math.abs(a.started - b.started)).toBeLessThan(150)
      expect(c.started).toBeGreaterThanOrEqual(Math.min(a.ended, b.ended))
    } finally {
      await pair.close()
    }
  })

  it('refuses calls beyond its queue as busy', async () => {
    const tiny = createSandbox({}, { workers: 1, maxQueue: 1 })
    try {
      const running = tiny.runTransform(busyFor(200), 1)
      const queued = tiny.runTransform(identity, 2)
      const refused = await failureOf(tiny.runTransform(identity, 3))
      expect(refused.kind).toBe('runtime')
      expect(refused.message).toStartWith('sandbox busy')
      expect((await running).output).toMatchObject({ input: 1 })
      expect((await queued).output).toBe(2)
    } finally {
      await tiny.close()
    }
  })

  it('runs 100 small calls in a row', async () => {
    for (let i = 0; i < 100; i++) {
      expect((await sandbox.runTransform('function transform(n) { return n * 2 }', i)).output).toBe(i * 2)
    }
  })

  it('close() fails running and queued calls, and refuses later calls', async () => {
    const closing = createSandbox({}, { workers: 1 })
    const running = failureOf(closing.runTransform(forever, null, { timeoutMs: 10_000 }))
    const queued = failureOf(closing.runTransform(identity, null))
    await sleep(50)
    await closing.close()
    for (const error of [await running, await queued, await failureOf(closing.runTransform(identity, null))]) {
      expect(error.kind).toBe('runtime')
      expect(error.message).toBe('the sandbox is closed')
    }
  })

  it('refuses invalid pool options with a RangeError', () => {
    expect(() => createSandbox({}, { workers: 0 })).toThrow(RangeError)
    expect(() => createSandbox({}, { workers: 1.5 })).toThrow(RangeError)
    expect(() => createSandbox({}, { maxQueue: -1 })).toThrow(RangeError)
  })
})

describe('sandbox worker pool replacing workers', () => {
  it('replaces a worker whose engine a call left in an unknown state', async () => {
    let spawned = 0
    const spawn = () => {
      spawned++
      return spawnSandboxWorker()
    }
    const pool = createWorkerPool({ size: 1, maxQueue: 10, idleMs: 1000, spawn })
    const job = (code: string): Job => ({ code, inputJson: '"x"', limits: DEFAULT_LIMITS })
    try {
      // QuickJS recursing in C overflows the host's stack inside WASM, so the engine is retired.
      const deep = 'function transform() { const n = 50000; return JSON.parse("[".repeat(n) + "]".repeat(n)) }'
      expect((await failureOf(pool.run(job(deep)))).kind).toBe('memory')
      expect((await pool.run(job(identity))).output).toBe('x')
      expect(spawned).toBe(2)
    } finally {
      await pool.close()
    }
  })
})

describe('sandbox worker pool with a scripted worker', () => {
  const fixture = new URL('./fixtures/scripted-worker.ts', import.meta.url).href
  const limits: SandboxLimits = { ...DEFAULT_LIMITS, timeoutMs: 50 }
  const job = (code: string): Job => ({ code, inputJson: 'null', limits })

  function scriptedPool(url = fixture) {
    const pool = { spawned: 0 }
    const spawn = () => {
      pool.spawned++
      return new Worker(url, { type: 'module' })
    }
    return Object.assign(pool, createWorkerPool({ size: 1, maxQueue: 10, idleMs: 1000, spawn }))
  }

  it('replaces a worker that dies, failing its call with a memory error', async () => {
    const pool = scriptedPool()
    try {
      expect((await pool.run(job('before'))).output).toBe('before')
      const error = await failureOf(pool.run(job('crash')))
      expect(error.kind).toBe('memory')
      expect(error.message).toContain('simulated crash')
      expect((await pool.run(job('after'))).output).toBe('after')
      expect(pool.spawned).toBe(2)
    } finally {
      await pool.close()
    }
  })

  it('terminates a worker that never answers once the deadline and grace have passed', async () => {
    const pool = scriptedPool()
    try {
      const [error, elapsed] = await timed(failureOf(pool.run(job('hang'))))
      expect(error.kind).toBe('timeout')
      expect(error.message).toBe('transform did not finish within 50 ms')
      expect(elapsed).toBeGreaterThanOrEqual(50 + HARD_TIMEOUT_GRACE_MS - 5)
      expect((await pool.run(job('after'))).output).toBe('after')
    } finally {
      await pool.close()
    }
  })

  it('fails a call whose worker cannot start with a runtime error, without crashing the host', async () => {
    const pool = scriptedPool(new URL('./fixtures/missing-worker.ts', import.meta.url).href)
    try {
      const error = await failureOf(pool.run(job('anything')))
      expect(error).toBeInstanceOf(SandboxError)
      expect(error.kind).toBe('runtime')
      expect(error.message).toStartWith('the sandbox worker failed to start')
    } finally {
      await pool.close()
    }
  })
})
