/**
 * The error the sandbox reports when the user's code or data is at fault: it does not compile,
 * throws, runs out of time or memory, defines no `transform`, or passes JSON the sandbox refuses.
 * It is not used for host mistakes (invalid limits are a RangeError) or engine failures.
 */
export type SandboxErrorKind = 'syntax' | 'runtime' | 'timeout' | 'memory' | 'no-transform' | 'output' | 'input'

export interface SandboxErrorDetails {
  /** Line in the user's code, when QuickJS reports one. */
  readonly line?: number
  /** Console lines the code wrote before it failed. */
  readonly logs?: readonly string[]
  readonly cause?: unknown
}

export class SandboxError extends Error {
  override readonly name = 'SandboxError'
  readonly kind: SandboxErrorKind
  readonly line: number | undefined
  readonly logs: readonly string[]

  constructor(kind: SandboxErrorKind, message: string, details: SandboxErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.kind = kind
    this.line = details.line
    this.logs = details.logs ?? []
  }
}

/** The same error, carrying the console lines captured before it happened. */
export function withLogs(error: SandboxError, logs: readonly string[]): SandboxError {
  return new SandboxError(error.kind, error.message, { line: error.line, logs, cause: error.cause })
}
