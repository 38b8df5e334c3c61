/** The in-process work queue of the embedded mode: notifications go straight to the consumer. */
import type { WorkConsumer, WorkQueue } from '../../core/ports/work-queue.ts'

export function memoryWorkQueue(): WorkQueue {
  let consumer: ((runId: string) => Promise<void>) | null = null
  const pending: string[] = []
  return {
    async notify(runId) {
      if (consumer) void consumer(runId).catch(() => pending.push(runId))
      else pending.push(runId)
    },
    async consume(take): Promise<WorkConsumer> {
      consumer = take
      for (const runId of pending.splice(0)) void take(runId).catch(() => {})
      return {
        async stop() {
          consumer = null
        },
      }
    },
    async close() {
      consumer = null
    },
  }
}
