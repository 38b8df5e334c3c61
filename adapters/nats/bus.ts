/**
 * The bus over NATS core subjects (at-most-once, like the port promises). Messages are JSON.
 * Subscribing the same pattern twice in one process shares one NATS subscription.
 *
 * What one turn publishes on the same subject in a row (the events of one journal write, all on
 * their run's subject) travels as one NATS message, a batch: every process that listens reads,
 * routes and decodes one message instead of one per event, and NATS forwards one. A receiver
 * hands each message of a batch to its handlers, in order, as if they had come one by one.
 *
 * Deployments sharing one NATS server keep apart by a prefix (AUTOMATON_NATS_PREFIX): every
 * subject published or subscribed is sent as `<prefix>.<subject>`, and handlers see the subject
 * without it, so the rest of the service names subjects as if it were alone on the server.
 */
import type { NatsConnection, Subscription as NatsSubscription } from '@nats-io/transport-node'
import type { Bus, BusMessage } from '../../core/ports/bus.ts'
import type { Logger } from '../../core/ports/logger.ts'

/** The one key of a batch's JSON object: the messages, in order. */
const BATCH = 'automaton.batch'
/** A batch stays well under NATS's default 1 MB payload limit; a larger run of messages is split. */
const MAX_BATCH_BYTES = 256 * 1024

export interface NatsBusOptions {
  /** Put before every subject, with a dot (AUTOMATON_NATS_PREFIX); empty for the bare subjects. */
  readonly prefix?: string
}

export function natsBus(nc: NatsConnection, logger?: Logger, options: NatsBusOptions = {}): Bus {
  const prefix = options.prefix ? `${options.prefix}.` : ''
  const onServer = (subject: string) => prefix + subject
  const inService = (subject: string) => (subject.startsWith(prefix) ? subject.slice(prefix.length) : subject)
  const encoder = new TextEncoder()
  const decoder = new TextDecoder()
  const shared = new Map<string, { sub: NatsSubscription; handlers: Set<(m: BusMessage) => void> }>()
  /** Messages published in this turn, in order, as JSON. */
  let queued: Array<{ subject: string; json: string }> = []

  function send(subject: string, json: string) {
    if (nc.isClosed()) return
    try {
      nc.publish(subject, encoder.encode(json))
    } catch (error) {
      logger?.warn('could not publish on the bus', { subject, error: String(error) })
    }
  }

  /** Sends what this turn published: consecutive messages on one subject as one batch. */
  function flush() {
    const items = queued
    queued = []
    for (let i = 0; i < items.length; ) {
      const { subject } = items[i]
      let bytes = items[i].json.length
      let j = i + 1
      while (j < items.length && items[j].subject === subject && bytes + items[j].json.length < MAX_BATCH_BYTES)
        bytes += items[j++].json.length
      send(
        subject,
        j - i === 1
          ? items[i].json
          : `{"${BATCH}":[${items
              .slice(i, j)
              .map((item) => item.json)
              .join(',')}]}`,
      )
      i = j
    }
  }

  return {
    publish(subject, data) {
      if (nc.isClosed()) return
      let json: string
      try {
        json = JSON.stringify(data)
      } catch (error) {
        return logger?.warn('could not publish on the bus', { subject, error: String(error) })
      }
      if (queued.length === 0) queueMicrotask(flush)
      queued.push({ subject: onServer(subject), json })
    },
    subscribe<T>(pattern: string, handler: (message: BusMessage<T>) => void) {
      let entry = shared.get(pattern)
      if (!entry) {
        const handlers = new Set<(m: BusMessage) => void>()
        const sub = nc.subscribe(onServer(pattern), {
          callback: (error, msg) => {
            if (error) return logger?.warn('bus subscription error', { pattern, error: String(error) })
            let data: unknown
            try {
              data = JSON.parse(decoder.decode(msg.data))
            } catch {
              return
            }
            const batch =
              data !== null && typeof data === 'object' && BATCH in data
                ? (data as Record<string, unknown>)[BATCH]
                : undefined
            for (const one of Array.isArray(batch) ? batch : [data]) {
              for (const h of handlers) {
                try {
                  h({ subject: inService(msg.subject), data: one })
                } catch (e) {
                  logger?.error('bus handler failed', { subject: msg.subject, error: String(e) })
                }
              }
            }
          },
        })
        entry = { sub, handlers }
        shared.set(pattern, entry)
      }
      const h = handler as (m: BusMessage) => void
      entry.handlers.add(h)
      return {
        unsubscribe() {
          const current = shared.get(pattern)
          if (!current) return
          current.handlers.delete(h)
          if (current.handlers.size === 0) {
            current.sub.unsubscribe()
            shared.delete(pattern)
          }
        },
      }
    },
    async ping() {
      if (nc.isClosed()) throw new Error('NATS connection is closed')
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([
        nc.flush(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('NATS did not answer within 2 s')), 2000)
        }),
      ]).finally(() => clearTimeout(timer))
    },
    async close() {
      flush()
      for (const { sub } of shared.values()) sub.unsubscribe()
      shared.clear()
    },
  }
}
