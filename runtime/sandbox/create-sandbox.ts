/**
 * The sandbox the `code-transform` node uses to run user code: `transform(input)` evaluated in a
 * fresh QuickJS runtime per call, bounded in time, memory, stack, input and output, with only
 * ECMAScript built-ins and a capturing `console` inside. Nothing is shared between calls.
 * Calls run on a small pool of worker threads, so the caller's event loop never waits for user
 * code, and a call that overruns its deadline or is aborted has its worker terminated.
 * It does not persist anything, reach the network or file system, or expose host objects.
 *
 * @example
 * const sandbox = createSandbox({ timeoutMs: 500 })
 * const { output, logs } = await sandbox.runTransform(
 *   'function transform(input) { console.log(input.n); return { double: input.n * 2 } }',
 *   { n: 21 },
 * )
 * // output: { double: 42 }, logs: ['21']
 * await sandbox.close() // at shutdown
 */
import type { Clock } from '../../core/ports/clock.ts'
import { encodeInput } from './json-text.ts'
import { DEFAULT_LIMITS, resolveLimits, type SandboxLimits } from './limits.ts'
import { createWorkerPool, type PoolOptions } from './pool.ts'
import type { TransformResult } from './run-transform.ts'

export interface Sandbox {
  /**
   * Runs `code`, which must define `transform(input)`, on a JSON copy of `input`, in a worker.
   * Rejects with a SandboxError when the code or data is at fault, the call overran its time
   * limit, or the sandbox is busy or closed; with `signal.reason` when `signal` aborts it; and
   * with a RangeError when `limits` are invalid.
   */
  runTransform(
    code: string,
    input: unknown,
    limits?: Partial<SandboxLimits>,
    signal?: AbortSignal,
  ): Promise<TransformResult>
  /**
   * Terminates every worker, rejecting running and queued calls with a SandboxError; later calls
   * are refused the same way. For shutdown.
   */
  close(): Promise<void>
}

export interface SandboxOptions {
  /** Worker threads, hence transforms running at once. Default 2. */
  workers?: number
  /** Calls that may wait for a worker before more are refused as busy. Default 1000. */
  maxQueue?: number
  /** Where workers cannot be unref'd (Deno), how long one may sit idle before it ends. Default 1000 ms. */
  idleMs?: number
  /** Times the pool's hard timeouts (deadline plus grace) and idle workers; tests pass a manual one. */
  clock?: Clock
}

const DEFAULT_OPTIONS = Object.freeze({ workers: 2, maxQueue: 1000, idleMs: 1000 })

/**
 * A sandbox whose calls use `defaults` (over DEFAULT_LIMITS) unless a call overrides them.
 * Its workers start on first use.
 */
export function createSandbox(defaults: Partial<SandboxLimits> = {}, options: SandboxOptions = {}): Sandbox {
  const base = resolveLimits(DEFAULT_LIMITS, defaults)
  const pool = createWorkerPool(resolvePoolOptions(options))
  return Object.freeze({
    async runTransform(code: string, input: unknown, limits?: Partial<SandboxLimits>, signal?: AbortSignal) {
      const resolved = resolveLimits(base, limits)
      if (typeof code !== 'string') throw new TypeError('code must be a string')
      signal?.throwIfAborted()
      const inputJson = encodeInput(input, resolved.maxInputBytes)
      return pool.run({ code, inputJson, limits: resolved }, signal)
    },
    close: () => pool.close(),
  })
}

function resolvePoolOptions(options: SandboxOptions): PoolOptions {
  const { workers, maxQueue, idleMs } = { ...DEFAULT_OPTIONS, ...definedOnly(options) }
  assertInteger('workers', workers, 1, 64)
  assertInteger('maxQueue', maxQueue, 0, 1_000_000)
  assertInteger('idleMs', idleMs, 1, 24 * 60 * 60 * 1000)
  return { size: workers, maxQueue, idleMs, clock: options.clock }
}

function definedOnly(options: SandboxOptions): SandboxOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined))
}

function assertInteger(name: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`sandbox option ${name} must be an integer from ${min} to ${max}`)
  }
}
