/**
 * Entry of the embedded store's checkpoint thread: copies the write-ahead log back into the
 * database file (a PASSIVE checkpoint, which never waits for the writer or a reader) on its own
 * connection, so the main thread's commits never do it. It checkpoints when the store says it
 * committed, at most every `intervalMs`, and replies with the log's size in frames after each.
 *
 * `bun build --compile` must be given this file as an extra entrypoint (see package.json).
 */
import { Database } from 'bun:sqlite'

export interface CheckpointStart {
  type: 'start'
  path: string
  synchronous: 'FULL' | 'NORMAL'
  intervalMs: number
}
export type CheckpointRequest = CheckpointStart | { type: 'committed' } | { type: 'stop' }
export type CheckpointReply =
  | { type: 'ready' }
  | { type: 'checkpointed'; log: number; copied: number }
  /** A checkpoint could not write (a full disk): it is tried again every STALLED_RETRY_MS until one can. */
  | { type: 'stalled'; error: string }
  | { type: 'failed'; error: string }

/** How often a checkpoint that could not write is tried again. */
export const STALLED_RETRY_MS = 1000

interface WorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<CheckpointRequest>) => void): void
  postMessage(message: CheckpointReply): void
  close(): void
}

const scope = globalThis as unknown as WorkerScope
let db: Database | undefined
let intervalMs = 100
let dirty = false
let timer: ReturnType<typeof setTimeout> | undefined
/** The last checkpoint could not write; the next one that can says so by replying `checkpointed`. */
let stalled = false

function checkpoint() {
  timer = undefined
  if (!db || !dirty) return
  dirty = false
  let wait = intervalMs
  try {
    const row = db.query('PRAGMA wal_checkpoint(PASSIVE)').get() as { busy: number; log: number; checkpointed: number }
    stalled = false
    scope.postMessage({ type: 'checkpointed', log: row.log, copied: row.checkpointed })
    // What could not be copied yet (a reader still needs it) is tried again on the next round.
    if (row.checkpointed < row.log) dirty = true
  } catch (error) {
    // The writer's own checkpoint holds the lock for a moment: next round.
    if (/busy|locked/i.test(String(error))) dirty = true
    else if (cannotWrite(error)) {
      // A full disk (or a failing write) passes: the log stays as it is until a checkpoint can write.
      if (!stalled) scope.postMessage({ type: 'stalled', error: String(error) })
      stalled = true
      dirty = true
      wait = Math.max(intervalMs, STALLED_RETRY_MS)
    } else scope.postMessage({ type: 'failed', error: String(error) })
  }
  if (dirty) timer = setTimeout(checkpoint, wait)
}

/** SQLITE_FULL, and SQLITE_IOERR with its extended codes (a write or a flush that failed). */
function cannotWrite(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code ?? '')
  return (
    code === 'SQLITE_FULL' ||
    code.startsWith('SQLITE_IOERR') ||
    /database or disk is full|disk I\/O error/i.test(String(error))
  )
}

scope.addEventListener('message', ({ data }) => {
  if (data.type === 'start') {
    try {
      db = new Database(data.path)
      db.run('PRAGMA busy_timeout = 5000')
      db.run(`PRAGMA synchronous = ${data.synchronous}`)
      // This connection never checkpoints on commit: it does not write.
      intervalMs = data.intervalMs
      scope.postMessage({ type: 'ready' })
    } catch (error) {
      scope.postMessage({ type: 'failed', error: String(error) })
    }
  } else if (data.type === 'committed') {
    dirty = true
    timer ??= setTimeout(checkpoint, intervalMs)
  } else {
    if (timer) clearTimeout(timer)
    db?.close()
    db = undefined
    scope.close()
  }
})
