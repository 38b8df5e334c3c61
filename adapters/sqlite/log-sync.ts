/**
 * Takes the commit's flush to disk off the thread that serves requests, without acknowledging
 * a write any earlier.
 *
 * With `synchronous=FULL`, SQLite flushes its write-ahead log inside every COMMIT: the event
 * loop stands still for the disk (a few hundred microseconds a commit on a virtual disk, once
 * per group-committed batch). The server's writer commits with `synchronous=NORMAL` instead,
 * which writes the log without flushing it, and a write is acknowledged only once a flush of the
 * log, made on the runtime's I/O threads, has finished after its commit: what an
 * acknowledged write survives (power loss included) is exactly what FULL gives. Commits go on
 * while a flush runs; one flush then covers every commit made before it started.
 *
 * A flush of the log through a descriptor of its own is a flush of the file: the kernel keeps a
 * file's unwritten pages per file, not per descriptor. SQLite removes the log only when its
 * last connection closes, and the store's writer is open for the whole life of this flusher.
 */
import { open } from 'node:fs/promises'

export interface LogSync {
  /** Calls `done` once everything committed before this call is on disk, `failed` if the flush failed. */
  after(done: () => void, failed: (error: unknown) => void): void
  /** Waits for the flushes asked for, then lets the log's file go. */
  close(): Promise<void>
}

export interface Flusher {
  flush(): Promise<void>
  close(): Promise<void>
}

/** Flushes the write-ahead log of the database at `path` (its `-wal` file). */
export function walFlusher(path: string): Flusher {
  let handle: Awaited<ReturnType<typeof open>> | undefined
  return {
    async flush() {
      handle ??= await open(`${path}-wal`, 'r+')
      await handle.datasync()
    },
    async close() {
      await handle?.close()
      handle = undefined
    },
  }
}

export function createLogSync(flusher: Flusher): LogSync {
  let waiting: Array<{ done: () => void; failed: (error: unknown) => void }> = []
  let running: Promise<void> | null = null

  async function loop() {
    while (waiting.length > 0) {
      // Everything that asked before this flush starts is covered by it.
      const covered = waiting
      waiting = []
      try {
        await flusher.flush()
        for (const w of covered) w.done()
      } catch (error) {
        for (const w of covered) w.failed(error)
      }
    }
    running = null
  }

  return {
    after(done, failed) {
      waiting.push({ done, failed })
      running ??= loop()
    },
    async close() {
      while (running) await running
      await flusher.close()
    },
  }
}
