/**
 * Decides when a running QuickJS runtime must stop: past its deadline, or holding more memory
 * than allowed. QuickJS's own memory limit misses large strings and typed arrays in this WASM
 * build (quickjs-emscripten#271), so the guard also watches the shared WASM memory grow and
 * samples the runtime's real heap size, throttled so sampling stays a small share of run time.
 * It only acts when QuickJS polls it; a burst of allocations between polls is stopped by the
 * WASM memory ceiling instead.
 */
import { Scope, type QuickJSContext, type QuickJSRuntime } from 'quickjs-emscripten-core'

export type GuardTrip = 'timeout' | 'memory'

export interface GuardOptions {
  readonly timeoutMs: number
  readonly memoryBytes: number
  /** Current size of the WASM memory the runtime allocates from. */
  readonly wasmBytes: () => number
  /** Bytes the runtime's heap holds now; may be slow, so it is sampled. */
  readonly heapBytes: () => number
  /** True once nobody waits for the run any more (aborted, or past the pool's hard deadline). */
  readonly cancelled?: () => boolean
  readonly now?: () => number
}

export interface Guard {
  /** True once the run must stop; QuickJS calls this as its interrupt handler. */
  check(): boolean
  /** Why the run was stopped, if it was. */
  tripped(): GuardTrip | undefined
  /**
   * One last heap sample when the transform has finished: a run shorter than the sampling
   * interval is judged by what it holds at the end, so the limit does not depend on timing.
   */
  finish(): boolean
}

/** Run time before the first heap sample, and the least time between samples. */
const SAMPLE_INTERVAL_MS = 5
/** Samples are spaced at least this many times their own cost apart (≤ ~10% overhead). */
const SAMPLE_COST_FACTOR = 10

export function createGuard(options: GuardOptions): Guard {
  const now = options.now ?? (() => performance.now())
  const started = now()
  const deadline = started + options.timeoutMs
  const wasmBaseline = options.wasmBytes()
  let nextSampleAt = started + SAMPLE_INTERVAL_MS
  let trip: GuardTrip | undefined

  function heapOverLimit(at: number): boolean {
    if (at < nextSampleAt) return false
    const used = options.heapBytes()
    const finished = now()
    nextSampleAt = finished + Math.max(SAMPLE_INTERVAL_MS, (finished - at) * SAMPLE_COST_FACTOR)
    return used > options.memoryBytes
  }

  function check(): boolean {
    if (trip !== undefined) return true
    const at = now()
    // A cancelled run ends like a timeout: its answer is discarded, but ending it frees the
    // thread, which terminate() alone does not while QuickJS runs (on Deno, not at all).
    if (at > deadline || options.cancelled?.()) trip = 'timeout'
    else if (options.wasmBytes() - wasmBaseline > options.memoryBytes) trip = 'memory'
    else if (heapOverLimit(at)) trip = 'memory'
    return trip !== undefined
  }

  function finish(): boolean {
    if (
      trip === undefined &&
      (options.wasmBytes() - wasmBaseline > options.memoryBytes || options.heapBytes() > options.memoryBytes)
    )
      trip = 'memory'
    return trip !== undefined
  }

  return { check, tripped: () => trip, finish }
}

/**
 * Bytes the runtime's heap holds, as QuickJS counts them when it walks the heap. Any failure
 * (QuickJS cannot even allocate the report) counts as having no memory left.
 */
export function runtimeHeapBytes(runtime: QuickJSRuntime, vm: QuickJSContext): number {
  try {
    return Scope.withScope((scope) => {
      const usage = scope.manage(runtime.computeMemoryUsage())
      const used = scope.manage(vm.getProp(usage, 'memory_used_size'))
      return vm.typeof(used) === 'number' ? vm.getNumber(used) : Number.POSITIVE_INFINITY
    })
  } catch {
    return Number.POSITIVE_INFINITY
  }
}
