/**
 * Turns what went wrong inside QuickJS, or in the engine under it, into a SandboxError with a
 * kind and a message a workflow author can act on. The guard's verdict wins over the error
 * QuickJS raised; otherwise the error is described by the VM's own helper, never by reading
 * user-controlled properties from the host.
 * It does not dispose the error handle it is given (the run's scope does).
 */
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core'
import type { GuardTrip } from './guard.ts'
import type { SandboxLimits } from './limits.ts'
import { SandboxError } from './sandbox-error.ts'

/** What the run was doing; decides the kind of error a failure becomes. */
export type Phase = 'bootstrap' | 'input' | 'compile' | 'evaluate' | 'lookup' | 'call' | 'settle' | 'output'

export const USER_FILE = 'transform.js'

const MAX_MESSAGE_CHARS = 1000
const USER_LINE = /transform\.js:(\d+)/

export interface VmFailure {
  readonly vm: QuickJSContext
  readonly error: QuickJSHandle
  readonly phase: Phase
  readonly limits: SandboxLimits
  /** The VM's error describer, absent when the bootstrap did not get that far. */
  readonly describe: QuickJSHandle | undefined
  readonly tripped: () => GuardTrip | undefined
}

interface Described {
  readonly text: string
  readonly line: number | undefined
}

export function fromVmError(failure: VmFailure): SandboxError {
  const { phase, limits } = failure
  const trip = failure.tripped()
  if (trip) return fromTrip(trip, limits)
  const described = describe(failure)
  // Describing allocates; if even that fails, QuickJS has run out of room.
  if (!described) return fromTrip(failure.tripped() ?? 'memory', limits)
  const { text, line } = described
  if (text === 'InternalError: out of memory') return fromTrip('memory', limits)
  if (text === 'InternalError: stack overflow') return stackError(limits, line)
  switch (phase) {
    case 'compile':
      return new SandboxError('syntax', `${text}${atLine(line)}`, { line })
    case 'bootstrap':
      return new SandboxError('memory', `the sandbox could not start within its limits: ${text}`)
    case 'input':
      return new SandboxError('input', `input could not be passed into the sandbox: ${text}`)
    case 'output':
      return new SandboxError('output', `transform returned a value that is not JSON-serialisable: ${text}`)
    default:
      return new SandboxError('runtime', `${text}${atLine(line)}`, { line })
  }
}

export function fromTrip(trip: GuardTrip, limits: SandboxLimits): SandboxError {
  if (trip === 'timeout') {
    return new SandboxError('timeout', `transform did not finish within ${limits.timeoutMs} ms`)
  }
  const limit = formatBytes(limits.memoryBytes)
  return new SandboxError('memory', `transform exceeded the memory limit of ${limit}`)
}

/**
 * The engine failed under the run instead of reporting a JS error. A RangeError about the stack
 * is the host's native stack overflowing inside WASM (QuickJS recursing in C); anything else is
 * returned unchanged.
 */
export function fromHostError(error: unknown, phase: Phase, limits: SandboxLimits): unknown {
  if (!(error instanceof RangeError) || !/stack/i.test(error.message)) return error
  if (phase === 'input') return new SandboxError('input', 'input nests too deeply', { cause: error })
  if (phase === 'output') {
    const message = 'transform returned a value that nests too deeply'
    return new SandboxError('output', message, { cause: error })
  }
  return stackError(limits, undefined, error)
}

function stackError(limits: SandboxLimits, line: number | undefined, cause?: unknown): SandboxError {
  const limit = formatBytes(limits.stackBytes)
  const message = `transform exceeded the stack limit of ${limit}: recursion too deep${atLine(line)}`
  return new SandboxError('memory', message, { line, cause })
}

function describe(failure: VmFailure): Described | undefined {
  const { vm, error, describe: describer } = failure
  if (!describer) return undefined
  const result = vm.callFunction(describer, vm.undefined, error)
  if (result.error) {
    result.error.dispose()
    return undefined
  }
  const [text, stack] = result.value.consume((pair) => [stringAt(vm, pair, 0), stringAt(vm, pair, 1)])
  const match = USER_LINE.exec(stack ?? '')
  return { text: clip(text ?? 'Uncaught error'), line: match ? Number(match[1]) : undefined }
}

/** Element `index` of an array the bootstrap made, if it is a string. */
function stringAt(vm: QuickJSContext, array: QuickJSHandle, index: number): string | undefined {
  return vm.getProp(array, index).consume((item) => (vm.typeof(item) === 'string' ? vm.getString(item) : undefined))
}

function atLine(line: number | undefined): string {
  return line === undefined ? '' : ` (line ${line})`
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}
