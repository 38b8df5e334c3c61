/**
 * Takes the expensive part of checkpoints off the thread that serves requests.
 *
 * In WAL mode a commit that finds the log past `wal_autocheckpoint` pages (1000, about 4 MB)
 * copies the log back into the database file and syncs that file before it returns: with
 * bun:sqlite, the event loop standing still for the copy and the sync of megabytes. With the
 * checkpointer, a worker thread copies and syncs on its own connection shortly after commits (a
 * PASSIVE checkpoint, which waits for nobody; the writer keeps committing meanwhile). The writer's automatic checkpoint
 * stays: it is what lets the log start over from its beginning (a checkpoint made while
 * commits keep arriving never quite catches up), and it now finds nearly every page already
 * copied, so it costs a few pages and a short sync. If the worker cannot start or fails, the
 * writer's checkpoints do it all, as without it. Measured: a modest gain (a write-only load's
 * longest event-loop stall 9.6–12.4 ms without, 8.3–9.0 ms with; docs/BENCHMARKS.md), and none
 * on the overload soak's answer p99, whose tail is the closed loop, not the checkpoint.
 *
 * A checkpoint that cannot write (a full disk) does not stop the thread: it says so once, tries
 * again every second, and goes on as soon as one can write; only another failure stops it.
 */
import type { Logger } from '../../core/ports/logger.ts'
import type { CheckpointReply, CheckpointRequest } from './checkpoint-worker.ts'

export interface Checkpointer {
  /** A batch was committed: the worker checkpoints soon after. */
  committed(): void
  /** Whether the worker is checkpointing (false before it is ready and after a failure). */
  readonly active: boolean
  /** Checkpoints the worker has run. */
  readonly rounds: number
  /** Whether its last checkpoint could not write (a full disk); it tries again until one can. */
  readonly stalled: boolean
  stop(): Promise<void>
}

export function startCheckpointer(options: {
  path: string
  synchronous: 'FULL' | 'NORMAL'
  intervalMs?: number
  logger?: Logger
}): Checkpointer {
  let worker: Worker | undefined
  let active = false
  let notified = false
  let stalled = false
  let rounds = 0
  const warn = (message: string, fields: Record<string, unknown>) =>
    options.logger
      ? options.logger.warn(message, fields)
      : console.warn(`automaton: ${message} (${Object.values(fields).join('; ')})`)
  const send = (message: CheckpointRequest) => worker?.postMessage(message)
  const fallBack = (reason: string) => {
    if (!worker) return
    warn("the store's checkpoint thread stopped; commits checkpoint the log themselves", { error: reason })
    active = false
    worker.terminate()
    worker = undefined
  }
  try {
    worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url).href, { type: 'module' })
  } catch (error) {
    warn('no checkpoint thread for the store; commits checkpoint the log themselves', { error: String(error) })
  }
  if (worker) {
    ;(worker as unknown as { unref?: () => void }).unref?.()
    worker.addEventListener('message', ({ data }: MessageEvent<CheckpointReply>) => {
      if (data.type === 'ready') active = true
      else if (data.type === 'checkpointed') {
        rounds++
        notified = false
        if (stalled) options.logger?.info("the store's checkpoint thread writes again", { path: options.path })
        stalled = false
      } else if (data.type === 'stalled') {
        stalled = true
        warn("the store's checkpoint thread cannot write; it tries again every second", {
          path: options.path,
          error: data.error,
        })
      } else fallBack(data.error)
    })
    worker.addEventListener('error', (event) => fallBack((event as ErrorEvent).message ?? 'error'))
    send({ type: 'start', path: options.path, synchronous: options.synchronous, intervalMs: options.intervalMs ?? 50 })
  }
  return {
    committed() {
      // One notice until the next checkpoint: the worker checkpoints everything committed by then.
      if (!active || notified) return
      notified = true
      send({ type: 'committed' })
    },
    get active() {
      return active
    },
    get rounds() {
      return rounds
    },
    get stalled() {
      return stalled
    },
    async stop() {
      const w = worker
      if (!w) return
      active = false
      worker = undefined
      // The worker closes its connection before the writer closes (the last connection's close checkpoints).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000)
        w.addEventListener('close', () => {
          clearTimeout(timer)
          resolve()
        })
        w.postMessage({ type: 'stop' } satisfies CheckpointRequest)
      })
      w.terminate()
    },
  }
}
