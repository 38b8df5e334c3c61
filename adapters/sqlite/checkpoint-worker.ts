/**
 * Entry of the embedded store's checkpoint thread: copies the write-ahead log back into the
 * database file (a PASSIVE checkpoint, which never waits for the writer or a reader) on its own
 * connection, so the main thread's commits never do it. It checkpoints when the store says it
 * committed, at most every `intervalMs`, and replies with the log's size in frames after each.
 *
 * `bun build --compile` must be given this file as an extra entrypoint (see package.json).
 */
import { Database } from 'bun:sqlite'

export interface CheckpointStart { type: 'start'; path: string; synchronous: 'FULL' | 'NORMAL'; intervalMs: number }
export type CheckpointRequest = CheckpointStart | { type: 'committed' } | { type: 'stop' }
export type CheckpointReply = { type: 'ready' } | { type: 'checkpointed'; log: number; copied: number } | { type: 'failed'; error: string }

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

function checkpoint() {
  timer = undefined
  if (!db || !dirty) return
  dirty = false
  try {
    const row = db.query('PRAGMA wal_checkpoint(PASSIVE)').get() as { busy: number; log: number; checkpointed: number }
    scope.postMessage({ type: 'checkpointed', log: row.log, copied: row.checkpointed })
    // What could not be copied yet (a reader still needs it) is tried again on the next round.
    if (row.checkpointed < row.log) dirty = true
  } catch (error) {
    // The writer's own checkpoint holds the lock for a moment: next round.
    if (/busy|locked/i.test(String(error))) dirty = true
    else scope.postMessage({ type: 'failed', error: String(error) })
  }
  if (dirty) timer = setTimeout(checkpoint, intervalMs)
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
