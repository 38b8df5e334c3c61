/**
 * The work queue on JetStream: a work-queue stream (`AUTOMATON_WORK`, subjects
 * `automaton.work.<runId>`) with one durable pull consumer shared by every worker, explicit acks,
 * and redelivery of what a worker did not acknowledge. Every notification is stored (a run
 * notified twice is handed out twice): ownership is decided in the store, so a repeat is
 * harmless, and a wake after a run was taken must not be lost to deduplication.
 *
 * It repairs itself, with no restart: a stream or consumer found missing is made again
 * (work-stream.ts), a notification NATS does not take is kept and published once it does
 * (work-notifier.ts), and the workers' consumer makes a new consumer when its own goes
 * (work-consumer.ts). What a lost stream held is gone with it: `onLoss` says so, and the engine
 * then looks in the store for the runs nobody took. Each failure is logged; the logger writes one
 * line a second per kind, with a count (core/logger.ts).
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/transport-node'
import { type Logger, silentLogger } from '../../core/ports/logger.ts'
import type { WorkQueue } from '../../core/ports/work-queue.ts'
import { consumeWork } from './work-consumer.ts'
import { createWorkNotifier } from './work-notifier.ts'
import { createWorkStream } from './work-stream.ts'

const STREAM = 'AUTOMATON_WORK'
const SUBJECT = 'automaton.work'

export interface NatsWorkQueueOptions {
  /** The stream's name (AUTOMATON_NATS_STREAM); tests use their own. */
  readonly stream?: string
  /** Put before the work subject, with a dot (AUTOMATON_NATS_PREFIX); empty for the bare subject. */
  readonly prefix?: string
  /** Notifications kept at most while they cannot be published; past it the oldest are left to the sweep. */
  readonly maxKept?: number
}

export async function natsWorkQueue(
  nc: NatsConnection,
  logger: Logger = silentLogger,
  options: NatsWorkQueueOptions = {},
): Promise<WorkQueue> {
  const stream = options.stream ?? STREAM
  const bare = stream === STREAM ? SUBJECT : `${stream.toLowerCase()}.work`
  const subject = options.prefix ? `${options.prefix}.${bare}` : bare
  const lossListeners = new Set<() => void>()
  /** A loss found before anyone listened (at start): told to the first listener. */
  let lossUnheard = false
  const work = createWorkStream(await jetstreamManager(nc), {
    stream,
    subject,
    onLoss(how) {
      if (how === 'made') logger.info('made the work stream', { stream })
      else
        logger.warn(
          'the work stream was made again: notifications it held are lost; the runs they named are looked for in the store',
          { stream },
        )
      if (lossListeners.size === 0) lossUnheard = true
      for (const listener of lossListeners) listener()
    },
  })
  await work.provision()
  const js = jetstream(nc, { timeout: 5000 })
  const notifier = createWorkNotifier({ nc, js, work, logger, stream, subject, maxKept: options.maxKept ?? 100_000 })

  return {
    notify: (runId) => notifier.notify(runId),
    onLoss(listener) {
      lossListeners.add(listener)
      if (lossUnheard) {
        lossUnheard = false
        queueMicrotask(listener)
      }
      return { unsubscribe: () => void lossListeners.delete(listener) }
    },
    async consume(take, concurrency) {
      return consumeWork({ js, work, logger, stream }, take, concurrency)
    },
    async close() {
      const unsent = notifier.close()
      if (unsent > 0)
        logger.warn("work notifications were not published; the workers' sweep finds their runs", {
          stream,
          count: unsent,
        })
    },
  }
}
