/**
 * The work queue on JetStream: a work-queue stream (`AUTOMATON_WORK`, subjects
 * `automaton.work.<runId>`) with one durable pull consumer shared by every worker, explicit acks,
 * and redelivery of what a worker did not acknowledge. Every notification is stored (a run
 * notified twice is handed out twice): ownership is decided in the store, so a repeat is
 * harmless, and a wake after a run was taken must not be lost to deduplication.
 */
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/transport-node'
import type { Logger } from '../../core/ports/logger.ts'
import type { WorkConsumer, WorkQueue } from '../../core/ports/work-queue.ts'

const STREAM = 'AUTOMATON_WORK'
const SUBJECT = 'automaton.work'
const CONSUMER = 'workers'

export async function natsWorkQueue(nc: NatsConnection, logger?: Logger, options: { stream?: string } = {}): Promise<WorkQueue> {
  const stream = options.stream ?? STREAM
  const subject = stream === STREAM ? SUBJECT : `${stream.toLowerCase()}.work`
  const jsm = await jetstreamManager(nc)
  const config = {
    name: stream,
    subjects: [`${subject}.>`],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: 2_000_000_000,
  }
  try {
    await jsm.streams.info(stream)
    await jsm.streams.update(stream, config)
  } catch {
    await jsm.streams.add(config).catch(async () => jsm.streams.info(stream))
  }
  await jsm.consumers.add(stream, {
    durable_name: CONSUMER, ack_policy: AckPolicy.Explicit, ack_wait: 30_000_000_000, max_deliver: -1,
    deliver_policy: DeliverPolicy.All, max_ack_pending: 10_000,
  }).catch(() => {})
  const js = jetstream(nc, { timeout: 5000 })
  let seq = 0

  return {
    async notify(runId) {
      await js.publish(`${subject}.${runId}`, runId, { msgID: `${runId}:${Date.now()}:${++seq}` })
    },
    async consume(take, concurrency): Promise<WorkConsumer> {
      let stopped = false
      let current: { stop(): void } | null = null
      const consumer = await js.consumers.get(stream, CONSUMER)
      const loop = async () => {
        while (!stopped) {
          try {
            const messages = await consumer.consume({ max_messages: Math.max(1, concurrency) })
            current = messages
            const inFlight = new Set<Promise<void>>()
            for await (const msg of messages) {
              if (stopped) break
              const runId = msg.string()
              const job = take(runId).then(() => msg.ack(), (error) => {
                logger?.warn('could not take a run; it will be redelivered', { runId, error: String(error) })
                msg.nak(1000)
              })
              inFlight.add(job)
              job.finally(() => inFlight.delete(job))
              if (inFlight.size >= concurrency) await Promise.race(inFlight)
            }
          } catch (error) {
            if (!stopped) logger?.warn('work queue consumer restarting', { error: String(error) })
            await new Promise((r) => setTimeout(r, 500))
          }
        }
      }
      const running = loop()
      return {
        async stop() {
          stopped = true
          current?.stop()
          await Promise.race([running, new Promise((r) => setTimeout(r, 1000))])
        },
      }
    },
    async close() {},
  }
}
