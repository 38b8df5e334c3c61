/**
 * The loop behind the durable timers and the schedules: it calls `tick` when the earliest known
 * due time comes, and at the latest every `pollMs` (other processes add work it hears nothing
 * of). `dueAt(at)` moves the next wake-up earlier. It never runs two ticks at once: the next one
 * is planned only after a tick resolves. It holds no work of its own; the rows are the truth.
 */
import type { Clock } from '../core/ports/clock.ts'

export interface WakeLoop {
  start(): void
  /** Something is due at `at`: wake then, if that is sooner than planned. */
  dueAt(at: number): void
  /** After a tick: when the next known work is due (Infinity when none is). */
  setNext(at: number): void
  readonly next: number
  stop(): void
}

export function createWakeLoop(deps: { clock: Clock; pollMs: number; tick: () => Promise<unknown> }): WakeLoop {
  let timer: ReturnType<typeof setTimeout> | null = null
  let nextAt = Number.POSITIVE_INFINITY
  let stopped = true

  function plan() {
    if (stopped) return
    if (timer) clearTimeout(timer)
    const wait = Math.max(0, Math.min(deps.pollMs, nextAt - deps.clock.now()))
    timer = setTimeout(async () => {
      timer = null
      await deps.tick()
      plan()
    }, wait)
    ;(timer as { unref?: () => void }).unref?.()
  }

  return {
    start() {
      stopped = false
      plan()
    },
    dueAt(at) {
      if (at >= nextAt) return
      nextAt = at
      plan()
    },
    setNext(at) {
      nextAt = at
    },
    get next() {
      return nextAt
    },
    stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      timer = null
    },
  }
}
