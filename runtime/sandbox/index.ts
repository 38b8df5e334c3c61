/**
 * Public surface of the code-transform sandbox: run untrusted `transform(input)` code in QuickJS,
 * on worker threads, with bounded time, memory and I/O. Everything else in this folder is
 * internal; worker.ts is the worker threads' entry (an extra entrypoint of `bun build --compile`).
 */
export { createSandbox, type Sandbox, type SandboxOptions } from './create-sandbox.ts'
export { DEFAULT_LIMITS, type SandboxLimits } from './limits.ts'
export type { TransformResult } from './run-transform.ts'
export { SandboxError, type SandboxErrorKind } from './sandbox-error.ts'
