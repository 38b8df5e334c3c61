/**
 * One sandboxed call on a loaded engine: a fresh QuickJS runtime and context, the user's code
 * evaluated, `transform(input)` called and its promise settled, the result brought back as JSON.
 * Everything created is disposed before returning, unless the engine itself failed, in which case
 * it is retired untouched. Synchronous once the engine is loaded, so calls never interleave and
 * only one runtime at a time uses the shared WASM memory.
 * It does not validate limits or encode the input (the caller does).
 */
import {
  Scope,
  type DisposableResult,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
} from 'quickjs-emscripten-core'
import { installBootstrap, type VmHelpers } from './bootstrap.ts'
import { retireEngine, type Engine } from './quickjs.ts'
import { createGuard, runtimeHeapBytes, type Guard } from './guard.ts'
import { decodeOutput } from './json-text.ts'
import type { SandboxLimits } from './limits.ts'
import { createLogCollector, type LogCollector } from './log-collector.ts'
import { SandboxError, withLogs } from './sandbox-error.ts'
import { fromHostError, fromTrip, fromVmError, USER_FILE, type Phase } from './vm-errors.ts'

export interface TransformResult {
  /** What `transform` returned (or resolved to), copied through JSON; `undefined` becomes null. */
  output: unknown
  /** Console lines, within 100 lines and 10 KiB. */
  logs: string[]
  /** Time spent in QuickJS for this call, excluding loading the engine. */
  durationMs: number
}

/** Pending jobs run between checks of the promise and the guard. */
const JOB_BATCH = 256

const LOOKUP_SOURCE = `typeof transform === 'function' ? transform : typeof transform`

interface Run {
  readonly vm: QuickJSContext
  readonly runtime: QuickJSRuntime
  readonly scope: Scope
  readonly guard: Guard
  readonly limits: SandboxLimits
  readonly logs: LogCollector
  phase: Phase
  helpers: VmHelpers | undefined
}

/** `cancelled` is polled with the deadline; once true, the run ends as if it had timed out. */
export function runTransformOn(
  engine: Engine,
  code: string,
  inputJson: string,
  limits: SandboxLimits,
  cancelled?: () => boolean,
): TransformResult {
  const started = performance.now()
  const scope = new Scope()
  const logs = createLogCollector()
  let run: Run | undefined
  let engineFailed = false
  try {
    run = startRun(engine, scope, limits, logs, cancelled)
    const output = execute(run, code, inputJson)
    return { output, logs: logs.lines(), durationMs: performance.now() - started }
  } catch (error) {
    if (error instanceof SandboxError) throw withLogs(error, logs.lines())
    engineFailed = true
    retireEngine(engine)
    const mapped = fromHostError(error, run?.phase ?? 'bootstrap', limits)
    throw mapped instanceof SandboxError ? withLogs(mapped, logs.lines()) : mapped
  } finally {
    if (!engineFailed) disposeOrRetire(engine, scope)
  }
}

/** A failure to free what the run created means the engine's state is unknown. */
function disposeOrRetire(engine: Engine, scope: Scope): void {
  try {
    scope.dispose()
  } catch (error) {
    retireEngine(engine)
    throw error
  }
}

function startRun(
  engine: Engine,
  scope: Scope,
  limits: SandboxLimits,
  logs: LogCollector,
  cancelled: (() => boolean) | undefined,
): Run {
  const runtime = scope.manage(engine.module.newRuntime())
  runtime.setMemoryLimit(limits.memoryBytes)
  runtime.setMaxStackSize(limits.stackBytes)
  const vm = scope.manage(runtime.newContext())
  const guard = createGuard({
    timeoutMs: limits.timeoutMs,
    memoryBytes: limits.memoryBytes,
    wasmBytes: () => engine.memory.buffer.byteLength,
    heapBytes: () => runtimeHeapBytes(runtime, vm),
    cancelled,
  })
  runtime.setInterruptHandler(guard.check)
  return { vm, runtime, scope, guard, limits, logs, phase: 'bootstrap', helpers: undefined }
}

function execute(run: Run, code: string, inputJson: string): unknown {
  const helpers = bootstrap(run)
  const input = passInput(run, helpers, inputJson)
  evaluate(run, code)
  const transform = lookupTransform(run)
  run.phase = 'call'
  const result = unwrap(run, run.vm.callFunction(transform, run.vm.undefined, input))
  const settled = settle(run, result)
  if (run.guard.finish()) throw fromTrip(run.guard.tripped() ?? 'memory', run.limits)
  return extractOutput(run, helpers, settled)
}

function bootstrap(run: Run): VmHelpers {
  const installed = installBootstrap(run.vm, run.scope, run.logs)
  if ('error' in installed) throw fail(run, installed.error)
  run.helpers = installed
  return installed
}

function passInput(run: Run, helpers: VmHelpers, inputJson: string): QuickJSHandle {
  run.phase = 'input'
  const text = run.scope.manage(run.vm.newString(inputJson))
  return unwrap(run, run.vm.callFunction(helpers.parse, run.vm.undefined, text))
}

/** Compiles first so that only errors of the code's text are reported as syntax errors. */
function evaluate(run: Run, code: string): void {
  run.phase = 'compile'
  unwrap(run, run.vm.evalCode(code, USER_FILE, { type: 'global', compileOnly: true }))
  run.phase = 'evaluate'
  unwrap(run, run.vm.evalCode(code, USER_FILE, { type: 'global' }))
}

/** Finds `transform` whether declared as a function or bound with const/let at the top level. */
function lookupTransform(run: Run): QuickJSHandle {
  run.phase = 'lookup'
  const found = unwrap(run, run.vm.evalCode(LOOKUP_SOURCE, 'sandbox-lookup.js', { type: 'global' }))
  const type = run.vm.typeof(found)
  if (type === 'function') return found
  const what = type === 'string' ? run.vm.getString(found) : type
  const detail = what === 'undefined' ? 'it is not defined' : `it is a ${what}`
  throw new SandboxError('no-transform', `code must define function transform(input); ${detail}`)
}

/** Runs pending jobs until the promise settles; a non-promise is already settled. */
function settle(run: Run, value: QuickJSHandle): QuickJSHandle {
  run.phase = 'settle'
  for (;;) {
    const state = run.vm.getPromiseState(value)
    if (state.type === 'fulfilled') return state.notAPromise ? value : run.scope.manage(state.value)
    if (state.type === 'rejected') throw fail(run, run.scope.manage(state.error))
    if (run.guard.check()) throw fromTrip(run.guard.tripped() ?? 'timeout', run.limits)
    if (!run.runtime.hasPendingJob()) {
      const reason = 'nothing is left to run, and the sandbox has no timers or I/O'
      throw new SandboxError('timeout', `transform returned a promise that can never settle: ${reason}`)
    }
    const jobs = run.runtime.executePendingJobs(JOB_BATCH)
    if (jobs.error) throw fail(run, run.scope.manage(jobs.error))
  }
}

function extractOutput(run: Run, helpers: VmHelpers, value: QuickJSHandle): unknown {
  run.phase = 'output'
  const { vm, limits } = run
  const json = unwrap(run, vm.callFunction(helpers.stringify, vm.undefined, value))
  if (vm.typeof(json) !== 'string') return null
  const length = vm.getNumber(run.scope.manage(vm.getProp(json, 'length')))
  if (length > limits.maxOutputBytes) {
    const message = `output is at least ${length} bytes of JSON; the limit is ${limits.maxOutputBytes} bytes`
    throw new SandboxError('output', message)
  }
  return decodeOutput(vm.getString(json), limits.maxOutputBytes)
}

function unwrap(run: Run, result: DisposableResult<QuickJSHandle, QuickJSHandle>): QuickJSHandle {
  if (result.error) throw fail(run, run.scope.manage(result.error))
  return run.scope.manage(result.value)
}

function fail(run: Run, error: QuickJSHandle): SandboxError {
  return fromVmError({
    vm: run.vm,
    error,
    phase: run.phase,
    limits: run.limits,
    describe: run.helpers?.describe,
    tripped: run.guard.tripped,
  })
}
