/**
 * The in-process work queue: notifications wait in memory until a consumer takes them, at most
 * `concurrency` at once; a notification whose `take` rejects is handed out again a moment later,
 * as JetStream redelivers what was not acknowledged (tests/contract/work-queue.contract.ts).
 */
import type { WorkConsumer, WorkQueue } from '../../core/ports/work-queue.ts'

/** How long a rejected notification waits before it is handed out again. */
const RETRY_MS = 100

export function memoryWorkQueue(): WorkQueue {
  const pending: string[] = []
  let consumer: { take(runId: string): Promise<void>; concurrency: number; inFlight: number } | null = null
  let closed = false

  function pump() {
    const c = consumer
    if (!c) return
    while (c === consumer && c.inFlight < c.concurrency && pending.length > 0) {
      const runId = pending.shift()!
      c.inFlight++
      c.take(runId)
        .then(
          () => {},
          () => {
            const retry = setTimeout(() => {
              if (closed) return
              pending.push(runId)
              pump()
            }, RETRY_MS)
            ;(retry as { unref?: () => void }).unref?.()
          },
        )
        .finally(() => {
          c.inFlight--
          pump()
        })
    }
  }

  return {
    async notify(runId) {
      if (closed) return
      pending.push(runId)
      pump()
    },
    async consume(take, concurrency): Promise<WorkConsumer> {
      const mine = { take, concurrency: Math.max(1, concurrency), inFlight: 0 }
      consumer = mine
      pump()
      return {
        async stop() {
          if (consumer === mine) consumer = null
        },
      }
    },
    async close() {
      closed = true
      consumer = null
    },
  }
}
