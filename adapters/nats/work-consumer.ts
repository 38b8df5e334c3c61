/**
 * The workers' side of the work queue: pulls notifications from the shared durable consumer and
 * hands each to `take`, at most `concurrency` at once, acknowledging it when `take` resolves and
 * asking for it again a second later when `take` rejects. When the stream or the consumer is
 * missing, or the server's heartbeats stop (a consumer deleted under it says nothing else), it
 * makes them again (work-stream.ts) and pulls from a new consumer.
 */
import type { JetStreamClient } from '@nats-io/jetstream'
import type { Logger } from '../../core/ports/logger.ts'
import type { WorkConsumer } from '../../core/ports/work-queue.ts'
import { pauseOf } from './work-notifier.ts'
import { CONSUMER, type WorkStream } from './work-stream.ts'

/**
 * How long a pull waits for messages. It also paces the server's heartbeats (half of it), whose
 * absence is how a consumer finds out, without an error, that its consumer went away.
 */
const PULL_EXPIRES_MS = 2000
/** What the client reports when the stream or consumer may be gone. */
const LOST = new Set(['heartbeats_missed', 'consumer_deleted', 'consumer_not_found', 'stream_not_found'])

export interface WorkConsumerDeps {
  js: JetStreamClient
  work: WorkStream
  logger: Logger
  stream: string
}

export function consumeWork(
  deps: WorkConsumerDeps,
  take: (runId: string) => Promise<void>,
  concurrency: number,
): WorkConsumer {
  let stopped = false
  let current: { stop(): void } | null = null
  // Across restarts of the consumer: a take still going counts against `concurrency`.
  const inFlight = new Set<Promise<void>>()

  /** Pulls from the consumer until its messages end; why they ended, unless stopped. */
  async function pull(onMessage: () => void): Promise<string | null> {
    const consumer = await deps.js.consumers.get(deps.stream, CONSUMER)
    const messages = await consumer.consume({
      max_messages: Math.max(1, concurrency),
      expires: PULL_EXPIRES_MS,
      abort_on_missing_resource: true,
    })
    current = messages
    if (stopped) messages.stop()
    // The client's own recovery re-pulls from the same messages, and was seen to stall: lost
    // messages end here, and a new consumer is made.
    let lost: string | null = null
    void (async () => {
      for await (const status of messages.status()) {
        if (!LOST.has(status.type)) continue
        lost = status.type
        messages.stop()
      }
    })().catch(() => {})
    for await (const msg of messages) {
      if (stopped) break
      onMessage()
      const runId = msg.string()
      const job = take(runId).then(
        () => msg.ack(),
        (error) => {
          deps.logger.warn('could not take a run; it will be redelivered', { runId, error: String(error) })
          msg.nak(1000)
        },
      )
      inFlight.add(job)
      job.finally(() => inFlight.delete(job))
      if (inFlight.size >= concurrency) await Promise.race(inFlight)
    }
    return stopped ? null : (lost ?? 'closed')
  }

  const running = (async () => {
    for (let attempt = 0; !stopped; ) {
      try {
        if (attempt > 0) await deps.work.repair()
        const ended = await pull(() => (attempt = 0))
        if (ended) throw new Error(`the work consumer stopped (${ended})`)
      } catch (error) {
        if (stopped) break
        deps.logger.warn('work queue consumer restarting', { stream: deps.stream, error: String(error) })
        await new Promise((r) => setTimeout(r, pauseOf(attempt++)))
      }
    }
  })()

  return {
    async stop() {
      stopped = true
      current?.stop()
      await Promise.race([running, new Promise((r) => setTimeout(r, 1000))])
    },
  }
}
