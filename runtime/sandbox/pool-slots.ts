/**
 * The worker slots of the sandbox pool (pool.ts): starting a worker and listening to it, ending
 * it, and the one timer each slot has (startup, hard timeout or idle), run on a Clock.
 */
import { type Clock, sleepOn } from '../../core/ports/clock.ts'
import type { WorkerMessage } from './protocol.ts'
import type { Job } from './pool.ts'
import type { TransformResult } from './run-transform.ts'
import { SandboxError } from './sandbox-error.ts'

/** How long a new worker may take to load its engine. */
const STARTUP_TIMEOUT_MS = 10_000
const MAX_DETAIL_CHARS = 300

export interface Call {
  readonly job: Job
  readonly signal: AbortSignal | undefined
  readonly resolve: (result: TransformResult) => void
  readonly reject: (error: unknown) => void
  /** The worker running the call, once it left the queue. */
  slot: Slot | undefined
  onAbort: (() => void) | undefined
}

export interface Slot {
  readonly worker: Worker
  readonly unref: boolean
  /** Shared with the worker, whose run stops at its next poll once this is set. */
  readonly cancel: Int32Array
  ready: boolean
  call: Call | undefined
  id: number
  /** Startup, hard-timeout or idle timer, depending on the state; aborting it disarms it. */
  timer: AbortController | undefined
}

/** What the pool does when a slot's worker speaks, dies or does not start in time. */
export interface SlotEvents {
  message(slot: Slot, message: WorkerMessage): void
  /** Ends the slot's worker, failing its call with `error`. */
  kill(slot: Slot, error: unknown): void
}

type Unreffable = { unref?: () => void }

/** Starts a worker in a new slot of `slots`, listened to until it leaves the set. */
export function openSlot(spawn: () => Worker, clock: Clock, slots: Set<Slot>, events: SlotEvents): Slot {
  const worker = spawn()
  const unref = typeof (worker as Unreffable).unref === 'function'
  const cancel = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT))
  const slot: Slot = { worker, unref, cancel, ready: false, call: undefined, id: 0, timer: undefined }
  if (unref) (worker as Unreffable).unref?.()
  const death = (detail: string) => events.kill(slot, deathError(slot, detail))
  worker.addEventListener('message', (event: MessageEvent<WorkerMessage>) => {
    if (slots.has(slot)) events.message(slot, event.data)
  })
  worker.addEventListener('error', (event: ErrorEvent) => {
    event.preventDefault()
    if (slots.has(slot)) death(summarise(event.message))
  })
  worker.addEventListener('messageerror', () => {
    if (slots.has(slot)) death('a message could not be deserialised')
  })
  // Bun reports a worker thread that exited; terminate() removes the slot before it fires.
  worker.addEventListener('close', () => {
    if (slots.has(slot)) death('the worker exited')
  })
  slots.add(slot)
  const message = `the sandbox worker did not start within ${STARTUP_TIMEOUT_MS} ms`
  arm(clock, slot, STARTUP_TIMEOUT_MS, () => events.kill(slot, new SandboxError('runtime', message)))
  return slot
}

/** terminate() only takes effect when the thread next runs JS, so the run is also cancelled. */
export function removeSlot(slots: Set<Slot>, slot: Slot): void {
  slots.delete(slot)
  disarm(slot)
  Atomics.store(slot.cancel, 0, 1)
  slot.worker.terminate()
}

/** A worker that dies while loading was probably never able to start; one that dies running a
 * transform was most likely taken down by it, through memory or the host's stack. */
function deathError(slot: Slot, detail: string): SandboxError {
  if (!slot.ready) return new SandboxError('runtime', `the sandbox worker failed to start: ${detail}`)
  return new SandboxError('memory', `transform crashed its sandbox worker, most likely out of memory: ${detail}`)
}

/** Bun puts a source excerpt before the error line of a worker's uncaught error; keep the error. */
function summarise(message: string | undefined): string {
  const text = message ?? ''
  const line = text.split('\n').find((part) => /^\s*error: /i.test(part)) ?? text
  const summary = line.replace(/^\s*error: /i, '').trim() || 'uncaught error'
  return summary.length > MAX_DETAIL_CHARS ? `${summary.slice(0, MAX_DETAIL_CHARS)}…` : summary
}

export function arm(clock: Clock, slot: Slot, ms: number, onTimeout: () => void): void {
  disarm(slot)
  const timer = new AbortController()
  slot.timer = timer
  // A timer disarmed (or replaced) after it fired but before this ran must not act.
  sleepOn(clock, ms, timer.signal).then(
    () => slot.timer === timer && onTimeout(),
    () => {},
  )
}

export function disarm(slot: Slot): void {
  slot.timer?.abort()
  slot.timer = undefined
}
