/**
 * The sandbox's worker pool: transforms run off the caller's thread, at most `workers` at once
 * with the rest queued in order, and a call that overruns its deadline plus the grace, is
 * aborted, or kills its worker ends at once. The pool's timers run on a manual clock here, so a
 * test decides when a deadline passes and never waits for one.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { createManualClock } from '../../../core/ports/clock.ts'
import { createSandbox, SandboxError, type SandboxLimits } from '../../../runtime/sandbox/index.ts'
import { DEFAULT_LIMITS } from '../../../runtime/sandbox/limits.ts'
import { createWorkerPool, HARD_TIMEOUT_GRACE_MS, spawnSandboxWorker, type Job } from '../../../runtime/sandbox/pool.ts'
import { settlesAtOnce } from '../../helpers/settled.ts'
import { failureOf } from './expect-failure.ts'

// Calls not about time get a generous deadline: a loaded machine must not end them by the clock.
const sandbox = createSandbox({ timeoutMs: 60_000 })
afterAll(() => sandbox.close())

const identity = 'function transform(input) { return input }'
const forever = 'function transform() { while (true) {} }'
/** Longer than any test runs: only an abort, a close or the pool's own clock can end such a call. */
const NEVER = { timeoutMs: 10 * 60 * 1000 }

/** A transform that keeps QuickJS busy for about `ms`. */
function busyFor(ms: number): string {
  return `function transform(input) {
    const started = Date.now(); while (Date.now() < started + ${ms}) {}
    return { input }
  }`
}

/** A pool of one real sandbox worker on a manual clock, counting the workers it starts. */
function clockedPool() {
  const clock = createManualClock()
  const counted = { spawned: 0 }
  const spawn = () => {
    counted.spawned++
    return spawnSandboxWorker()
  }
  return Object.assign(counted, { clock }, createWorkerPool({ size: 1, maxQueue: 10, idleMs: 1000, spawn, clock }))
}

const job = (code: string, limits: Partial<SandboxLimits> = {}): Job => ({
  code,
  inputJson: '"x"',
  limits: { ...DEFAULT_LIMITS, timeoutMs: 60_000, ...limits },
})

describe('sandbox worker pool', () => {
  it('keeps the caller’s event loop running while a transform computes', async () => {
    await sandbox.runTransform(identity, 'warm')
    const controller = new AbortController()
    const call = sandbox.runTransform(forever, null, NEVER, controller.signal)
    // Timers and I/O of the caller go on while the transform, which never returns, computes: each
    // timer firing is the proof (a blocked loop would hang here), not a wait before an assertion.
    for (let i = 0; i < 10; i++) await Bun.sleep(1)
    const server = Bun.serve({ port: 0, fetch: () => new Response('answered') })
    try {
      expect(await (await fetch(`http://127.0.0.1:${server.port}/`)).text()).toBe('answered')
    } finally {
      server.stop(true)
    }
    expect(await settlesAtOnce(call)).toBe(false)
    const reason = new Error('enough')
    controller.abort(reason)
    expect(await call.catch((e) => e)).toBe(reason)
  })

  it('ends a call stuck in slow built-ins once its deadline and the grace have passed, with a new worker after it', async () => {
    // On the in-process run these overran a 300 ms limit by about 5 seconds.
    const stuck = [
      'const a = new Array(5e4).fill("abc"); for (;;) a.join(",")',
      'const s = "a".repeat(5e5); for (;;) s.indexOf("b")',
    ]
    const pool = clockedPool()
    try {
      // A ready worker: a call's deadline is armed the moment it is sent.
      expect((await pool.run(job(identity))).output).toBe('x')
      for (const [i, body] of stuck.entries()) {
        const call = failureOf(pool.run(job(`function transform() { ${body} }`, { timeoutMs: 300 })))
        pool.clock.advance(300 + HARD_TIMEOUT_GRACE_MS - 1)
        expect(await settlesAtOnce(call)).toBe(false)
        pool.clock.advance(1)
        expect(await settlesAtOnce(call)).toBe(true)
        const error = await call
        expect(error.kind).toBe('timeout')
        expect(error.message).toBe('transform did not finish within 300 ms')
        expect((await pool.run(job(identity))).output).toBe('x')
        expect(pool.spawned).toBe(i + 2)
      }
    } finally {
      await pool.close()
    }
  })

  it('aborts a busy transform with the signal’s reason, and keeps working', async () => {
    await sandbox.runTransform(identity, 'warm')
    const controller = new AbortController()
    const call = sandbox.runTransform(forever, null, NEVER, controller.signal)
    const reason = new Error('run cancelled')
    controller.abort(reason)
    // Only the abort can end this call before the test's own timeout.
    expect(await call.catch((e) => e)).toBe(reason)
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
    const running = failureOf(closing.runTransform(forever, null, NEVER))
    const queued = failureOf(closing.runTransform(identity, null))
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
    // A generous deadline: under load the deep parse must end by the stack, never by the clock.
    const job = (code: string): Job => ({ code, inputJson: '"x"', limits: { ...DEFAULT_LIMITS, timeoutMs: 60_000 } })
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

  /** A pool of scripted workers on a manual clock; `sent` lists each job as the pool hands it to a worker. */
  function scriptedPool(url = fixture, size = 1) {
    const clock = createManualClock()
    const workers: Worker[] = []
    const sent: Array<{ worker: number; code: string }> = []
    const spawn = () => {
      const worker = new Worker(url, { type: 'module' })
      const index = workers.push(worker) - 1
      const post = worker.postMessage.bind(worker)
      worker.postMessage = (message: { code?: string }) => {
        if (message.code !== undefined) sent.push({ worker: index, code: message.code })
        post(message)
      }
      return worker
    }
    const pool = createWorkerPool({ size, maxQueue: 10, idleMs: 1000, spawn, clock })
    return {
      ...pool,
      clock,
      sent,
      get spawned() {
        return workers.length
      },
      /** Lets the worker holding `code` answer it. */
      release(code: string) {
        const holder = sent.find((s) => s.code === code)
        if (!holder) throw new Error(`no worker holds ${code}`)
        workers[holder.worker].postMessage({ release: code })
      },
    }
  }

  it('runs at most `size` calls at once and hands the rest to the first worker free, in order', async () => {
    const pool = scriptedPool(fixture, 2)
    try {
      const calls = ['hold a', 'hold b', 'hold c', 'hold d'].map((code) => pool.run(job(code)))
      expect(pool.sent.map((s) => s.code)).toEqual(['hold a', 'hold b'])
      expect(pool.spawned).toBe(2)
      pool.release('hold b')
      expect((await calls[1]).output).toBe('hold b')
      expect(pool.sent.at(-1)).toEqual({ worker: pool.sent[1].worker, code: 'hold c' })
      pool.release('hold a')
      expect((await calls[0]).output).toBe('hold a')
      expect(pool.sent.at(-1)).toEqual({ worker: pool.sent[0].worker, code: 'hold d' })
      pool.release('hold c')
      pool.release('hold d')
      expect((await Promise.all(calls)).map((r) => r.output)).toEqual(['hold a', 'hold b', 'hold c', 'hold d'])
      expect(pool.spawned).toBe(2)
    } finally {
      await pool.close()
    }
  })

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

  it('terminates a worker that never answers once the deadline and grace have passed, not before', async () => {
    const pool = scriptedPool()
    try {
      expect((await pool.run(job('warm'))).output).toBe('warm')
      const call = failureOf(pool.run(job('hang')))
      pool.clock.advance(50 + HARD_TIMEOUT_GRACE_MS - 1)
      expect(await settlesAtOnce(call)).toBe(false)
      pool.clock.advance(1)
      const error = await call
      expect(error.kind).toBe('timeout')
      expect(error.message).toBe('transform did not finish within 50 ms')
      expect((await pool.run(job('after'))).output).toBe('after')
      expect(pool.spawned).toBe(2)
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
