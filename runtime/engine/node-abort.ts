/**
 * A node's abort controller (made only when something looks at it) and its timeout: the
 * handler's work raced against the node's abort and the clock.
 */
import { type Clock, sleepOn } from '../../core/ports/clock.ts'

export class NodeTimeoutError extends Error {
  override name = 'NodeTimeoutError'
}

export type Controller = Pick<AbortController, 'signal' | 'abort'>

/**
 * A node's abort controller, made when something first asks for its signal or aborts it:
 * most handlers answer synchronously and never look, and an AbortController with its signal
 * is one of the larger allocations of a node execution.
 */
export function lazyController(): Controller {
  let controller: AbortController | undefined
  return {
    get signal() {
      return (controller ??= new AbortController()).signal
    },
    abort(reason?: unknown) {
      ;(controller ??= new AbortController()).abort(reason)
    },
  }
}

/** The work, or a NodeTimeoutError once `timeoutMs` of the clock's time passed first. */
export function withTimeout<T>(
  clock: Clock,
  work: Promise<T>,
  timeoutMs: number | undefined,
  controller: Controller,
): Promise<T> {
  const aborted = new Promise<never>((_, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason)
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason ?? new Error('aborted')), {
      once: true,
    })
  })
  aborted.catch(() => {})
  if (!timeoutMs) return Promise.race([work, aborted])
  const timer = new AbortController()
  sleepOn(clock, timeoutMs, timer.signal).then(
    () => controller.abort(new NodeTimeoutError(`the node timed out after ${timeoutMs} ms`)),
    () => {},
  )
  return Promise.race([work, aborted]).finally(() => timer.abort())
}
