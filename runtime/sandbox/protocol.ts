/**
 * The messages a sandbox worker and its pool exchange, and how errors cross between them:
 * structured cloning drops a SandboxError's class and fields, so errors travel as plain data
 * and are rebuilt on the pool's side.
 * It does not send or receive anything itself.
 */
import type { SandboxLimits } from './limits.ts'
import type { TransformResult } from './run-transform.ts'
import { SandboxError, type SandboxErrorKind } from './sandbox-error.ts'

/** One transform to run; the input is already JSON and the limits already validated. */
export interface RunRequest {
  readonly id: number
  readonly code: string
  readonly inputJson: string
  readonly limits: SandboxLimits
  /** One Int32 on a SharedArrayBuffer; the pool sets it to 1 when it gives up on the call. */
  readonly cancel: Int32Array
}

export function isCancelled(cancel: Int32Array): boolean {
  return Atomics.load(cancel, 0) !== 0
}

/**
 * An error as it crosses the thread boundary. `host` marks a failure of the engine rather than
 * of the user's code or data; it becomes a plain Error again, as the in-process run throws.
 */
export interface WireError {
  readonly kind: SandboxErrorKind | 'host'
  readonly message: string
  readonly line: number | undefined
  readonly logs: readonly string[]
}

/** Sent once after the worker loaded its engine, or failed to. */
export type WorkerStart = { readonly ready: true } | { readonly ready: false; readonly message: string }

/** The answer to one RunRequest. `retire` asks the pool to replace the worker. */
export type RunReply = { readonly id: number; readonly retire: boolean } & (
  | { readonly ok: true; readonly result: TransformResult }
  | { readonly ok: false; readonly error: WireError }
)

export type WorkerMessage = WorkerStart | RunReply

export function toWireError(error: unknown): WireError {
  if (error instanceof SandboxError) {
    return { kind: error.kind, message: error.message, line: error.line, logs: [...error.logs] }
  }
  return { kind: 'host', message: nameAndMessage(error), line: undefined, logs: [] }
}

export function fromWireError(error: WireError): Error {
  if (error.kind === 'host') return new Error(`the sandbox engine failed: ${error.message}`)
  return new SandboxError(error.kind, error.message, { line: error.line, logs: error.logs })
}

/** The error with its class name, for the host log (not errorMessage: the name matters here). */
export function nameAndMessage(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`
  return String(error)
}
