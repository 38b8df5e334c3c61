/**
 * A pool of sandbox worker threads, so transforms never block the caller's event loop and every
 * call has a hard time bound. At most `size` calls run at once, one per worker; the rest wait in
 * a bounded FIFO queue. A worker that overruns its call's deadline by HARD_TIMEOUT_GRACE_MS, whose
 * call is aborted, or that dies is terminated and replaced when next needed.
 * Workers start on first use and are reused. An idle pool does not keep the process alive: workers
 * are unref'd where the runtime allows it (Bun), and elsewhere (Deno) ended after `idleMs` idle.
 * The pool's own timers (startup, hard timeout, idle) run on a Clock; the engine inside a worker
 * keeps its deadline on the wall clock.
 * It does not validate limits or encode input (createSandbox does).
 */
import { type Clock, systemClock } from '../../core/ports/clock.ts'
import type { SandboxLimits } from './limits.ts'
import { fromWireError, nameAndMessage, type RunReply, type RunRequest, type WorkerMessage } from './protocol.ts'
import { arm, type Call, disarm, openSlot, removeSlot, type Slot } from './pool-slots.ts'
import type { TransformResult } from './run-transform.ts'
import { SandboxError } from './sandbox-error.ts'
import { fromTrip } from './vm-errors.ts'

/** How long past its own deadline a call may run before the pool terminates its worker. */
export const HARD_TIMEOUT_GRACE_MS = 250

export interface PoolOptions {
  /** Workers, hence calls running at once. */
  readonly size: number
  /** Calls that may wait for a worker; more are refused as busy. */
  readonly maxQueue: number
  /** Idle time after which a worker that cannot be unref'd is ended. */
  readonly idleMs: number
  /** Starts a worker speaking the protocol of worker.ts; tests substitute their own. */
  readonly spawn?: () => Worker
  /** Times the startup, hard-timeout and idle timers; the system's by default, a manual one in tests. */
  readonly clock?: Clock
}

export interface Job {
  readonly code: string
  readonly inputJson: string
  readonly limits: SandboxLimits
}

export interface WorkerPool {
  run(job: Job, signal?: AbortSignal): Promise<TransformResult>
  /** Terminates every worker and rejects every pending call; later calls are refused. */
  close(): Promise<void>
}

export function spawnSandboxWorker(): Worker {
  return new Worker(new URL('./worker.ts', import.meta.url).href, { type: 'module' })
}

export function createWorkerPool(options: PoolOptions): WorkerPool {
  const spawn = options.spawn ?? spawnSandboxWorker
  const clock = options.clock ?? systemClock
  const slots = new Set<Slot>()
  const queue: Call[] = []
  let nextId = 0
  let closed = false
  const events = { message: onMessage, kill }

  function run(job: Job, signal?: AbortSignal): Promise<TransformResult> {
    if (closed) return Promise.reject(new SandboxError('runtime', 'the sandbox is closed'))
    if (signal?.aborted) return Promise.reject(signal.reason)
    return new Promise((resolve, reject) => {
      const call: Call = { job, signal, resolve, reject, slot: undefined, onAbort: undefined }
      const free = hasCapacity()
      if (!free && queue.length >= options.maxQueue) {
        reject(new SandboxError('runtime', `sandbox busy: ${queue.length} transforms are already waiting`))
        return
      }
      if (signal) {
        call.onAbort = () => abort(call, signal.reason)
        signal.addEventListener('abort', call.onAbort, { once: true })
      }
      if (free) dispatch(call)
      else queue.push(call)
    })
  }

  function hasCapacity(): boolean {
    return slots.size < options.size || idleSlot() !== undefined
  }

  function idleSlot(): Slot | undefined {
    for (const slot of slots) if (slot.call === undefined) return slot
    return undefined
  }

  function pump(): void {
    while (queue.length > 0 && hasCapacity()) dispatch(queue.shift() as Call)
  }

  function dispatch(call: Call): void {
    let slot = idleSlot()
    try {
      slot ??= openSlot(spawn, clock, slots, events)
    } catch (error) {
      release(call).reject(new SandboxError('runtime', `the sandbox worker could not start: ${nameAndMessage(error)}`))
      return
    }
    slot.call = call
    slot.id = ++nextId
    call.slot = slot
    slot.worker.postMessage({ id: slot.id, ...call.job, cancel: slot.cancel } satisfies RunRequest)
    if (slot.ready) armDeadline(slot, call)
  }

  function armDeadline(slot: Slot, call: Call): void {
    const { limits } = call.job
    arm(clock, slot, limits.timeoutMs + HARD_TIMEOUT_GRACE_MS, () => kill(slot, fromTrip('timeout', limits)))
  }

  function onMessage(slot: Slot, message: WorkerMessage): void {
    if ('ready' in message) {
      if (!message.ready)
        kill(slot, new SandboxError('runtime', `the sandbox worker could not start: ${message.message}`))
      else onReady(slot)
    } else onReply(slot, message)
  }

  function onReady(slot: Slot): void {
    slot.ready = true
    disarm(slot)
    if (slot.call) armDeadline(slot, slot.call)
    else rest(slot)
  }

  function onReply(slot: Slot, reply: RunReply): void {
    const call = slot.call
    if (!call || reply.id !== slot.id) return
    slot.call = undefined
    disarm(slot)
    if (reply.retire) removeSlot(slots, slot)
    else rest(slot)
    if (reply.ok) release(call).resolve(reply.result)
    else release(call).reject(fromWireError(reply.error))
    pump()
  }

  function abort(call: Call, reason: unknown): void {
    if (call.slot) {
      kill(call.slot, reason)
      return
    }
    const index = queue.indexOf(call)
    if (index >= 0) queue.splice(index, 1)
    release(call).reject(reason)
  }

  /** Ends the worker, failing its call with `error`, and lets the queue move on. */
  function kill(slot: Slot, error: unknown): void {
    const call = slot.call
    slot.call = undefined
    removeSlot(slots, slot)
    if (call) release(call).reject(error)
    pump()
  }

  /** An idle worker that cannot be unref'd would keep the process alive, so it is ended later. */
  function rest(slot: Slot): void {
    if (!slot.unref) arm(clock, slot, options.idleMs, () => removeSlot(slots, slot))
  }

  async function close(): Promise<void> {
    closed = true
    const error = new SandboxError('runtime', 'the sandbox is closed')
    for (const call of queue.splice(0)) release(call).reject(error)
    for (const slot of [...slots]) kill(slot, error)
  }

  return { run, close }
}

/** Stops listening for the call's abort, before it is settled. */
function release(call: Call): Call {
  if (call.onAbort) call.signal?.removeEventListener('abort', call.onAbort)
  return call
}
