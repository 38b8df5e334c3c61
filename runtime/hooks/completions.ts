/**
 * Batches the outcomes of delivery attempts: those that finish in the same moment are written
 * with one statement per chunk instead of one each, which is what lets Postgres keep up with
 * thousands of deliveries a second. It writes; it decides nothing.
 */
import type { Store } from '../../core/ports/store.ts'
import { type Completion, hookDeliveries } from '../../core/store/hook-deliveries.ts'

/**
 * The outbox's leases and outcomes commit apart from the journal (see `WriteOptions.apart`): they
 * touch only rows leased to this worker, which no other write of the process changes, and order
 * with nothing else.
 */
export const APART = { apart: true } as const

// Outcomes wait this long for company: each flush is a commit (a disk flush on SQLite), and
// nothing waits on an outcome but its own retry, due seconds later at the earliest.
const FLUSH_MS = 10

interface Waiting {
  readonly completion: Completion
  resolve(written: boolean): void
  reject(error: unknown): void
}

export function createCompletionWriter(store: Store) {
  let queue: Waiting[] = []
  let scheduled = false

  function flush() {
    scheduled = false
    const batch = queue
    queue = []
    store
      .write(
        (tx) =>
          hookDeliveries.complete(
            tx,
            batch.map((w) => w.completion),
          ),
        APART,
      )
      .then(
        (written) => {
          for (const w of batch) w.resolve(written.has(w.completion.lease.id))
        },
        (error) => {
          for (const w of batch) w.reject(error)
        },
      )
  }

  return {
    /** Resolves to false when the lease was lost before the outcome could be written. */
    complete(completion: Completion): Promise<boolean> {
      return new Promise((resolve, reject) => {
        queue.push({ completion, resolve, reject })
        if (scheduled) return
        scheduled = true
        setTimeout(flush, FLUSH_MS)
      })
    },
  }
}
