import { SandboxError } from '../../../runtime/sandbox/index.ts'

/** The SandboxError a sandboxed call rejected with; fails the test if it resolved or threw otherwise. */
export async function failureOf(call: Promise<unknown>): Promise<SandboxError> {
  try {
    await call
  } catch (error) {
    if (error instanceof SandboxError) return error
    throw error
  }
  throw new Error('expected the transform to fail')
}
