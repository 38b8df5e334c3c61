/**
 * The JetStream stream and durable consumer behind the work queue, made at start and made again
 * whenever the queue finds them missing: the JetStream store was wiped, an operator deleted
 * them, or the server came back without its data. Making them again is single-flight (callers
 * at the same moment share one attempt) and idempotent (every process of a deployment may do
 * it). It says through `onLoss` when notifications may be gone: it made the stream itself
 * (`made`), or the stream it finds is not the one it knew (`replaced`: a stream made again holds
 * none of what the old one held).
 */
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
  type StreamInfo,
} from '@nats-io/jetstream'

export const CONSUMER = 'workers'
/** How long a missing stream is left missing before it is made again (see makeStreamAgain). */
const REMAKE_DELAY_MS = 500

export interface WorkStream {
  /** At start: makes the stream and consumer, or brings an existing stream's settings up to date. */
  provision(): Promise<void>
  /** After a failure that may mean they are missing: makes whatever is missing again. */
  repair(): Promise<void>
}

export function createWorkStream(
  jsm: JetStreamManager,
  options: { stream: string; subject: string; onLoss(how: 'made' | 'replaced'): void },
): WorkStream {
  const { stream } = options
  const streamConfig = {
    name: stream,
    subjects: [`${options.subject}.>`],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: 2_000_000_000,
  }
  const consumerConfig = {
    durable_name: CONSUMER,
    ack_policy: AckPolicy.Explicit,
    ack_wait: 30_000_000_000,
    max_deliver: -1,
    deliver_policy: DeliverPolicy.All,
    max_ack_pending: 10_000,
  }
  /** When the stream this process knows was made (a stream made again has another time). */
  let created: string | undefined
  let repairing: Promise<void> | null = null

  function remember(info: StreamInfo, made: boolean) {
    const replaced = created !== undefined && info.created !== created
    created = info.created
    if (replaced || made) options.onLoss(replaced ? 'replaced' : 'made')
  }

  async function makeStream(): Promise<StreamInfo> {
    // Another process may make it at the same moment: then it is there to read.
    return jsm.streams.add(streamConfig).catch(() => jsm.streams.info(stream))
  }

  /**
   * A stream made again within milliseconds of its deletion was seen (nats-server 2.9) to store
   * messages and hand none to any consumer, for good; made half a second later, it never was.
   */
  async function makeStreamAgain(): Promise<StreamInfo> {
    await new Promise((r) => setTimeout(r, REMAKE_DELAY_MS))
    return makeStream()
  }

  return {
    async provision() {
      let info: StreamInfo
      let made = false
      try {
        await jsm.streams.info(stream)
        info = await jsm.streams.update(stream, streamConfig)
      } catch {
        info = await makeStream()
        made = true
      }
      remember(info, made)
      await jsm.consumers.add(stream, consumerConfig).catch(() => {})
    },
    repair() {
      repairing ??= (async () => {
        let info: StreamInfo
        let made = false
        try {
          info = await jsm.streams.info(stream)
        } catch (error) {
          if (!isMissing(error)) throw error
          info = await makeStreamAgain()
          made = true
        }
        remember(info, made)
        try {
          await jsm.consumers.info(stream, CONSUMER)
        } catch (error) {
          if (!isMissing(error)) throw error
          await jsm.consumers.add(stream, consumerConfig)
        }
      })().finally(() => {
        repairing = null
      })
      return repairing
    },
  }
}

/**
 * Whether a JetStream failure says the stream or the consumer is not there. A publish to a subject
 * no stream takes is answered by nobody, which the client reports as JetStream not being enabled.
 */
export function isMissing(error: unknown): boolean {
  if (error instanceof JetStreamApiError) {
    return (
      error.code === JetStreamApiCodes.StreamNotFound ||
      error.code === JetStreamApiCodes.ConsumerNotFound ||
      error.code === JetStreamApiCodes.JetStreamNotEnabledForAccount
    )
  }
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown }
  return (
    name === 'JetStreamNotEnabled' ||
    /stream not found|consumer not found|consumer deleted|no responders/i.test(String(message ?? ''))
  )
}
