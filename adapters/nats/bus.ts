/**
 * The bus over NATS core subjects (at-most-once, like the port promises). Messages are JSON.
 * Subscribing the same pattern twice in one process shares one NATS subscription.
 *
 * What one turn publishes on the same subject in a row (the events of one journal write, all on
 * their run's subject) travels as one NATS message, a batch: every process that listens reads,
 * routes and decodes one message instead of one per event, and NATS forwards one. A receiver
 * hands each message of a batch to its handlers, in order, as if they had come one by one.
 *
 * A process hears what it publishes itself without NATS: on a connection that does not echo
 * (connection.ts), the bus hands each message it sends to its own matching handlers, as the
 * object published (as the in-process bus does), after the turn that published it; NATS then
 * carries it only to the other processes. A worker no longer reads back and decodes the events
 * of every run it executes.
 *
 * Deployments sharing one NATS server keep apart by a prefix (AUTOMATON_NATS_PREFIX): every
 * subject published or subscribed is sent as `<prefix>.<subject>`, and handlers see the subject
 * without it, so the rest of the service names subjects as if it were alone on the server.
 */
import type { NatsConnection, Subscription as NatsSubscription } from '@nats-io/transport-node'
import { type Bus, type BusMessage, subjectMatcher } from '../../core/ports/bus.ts'
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
  const shared = new Map<
    string,
    { sub: NatsSubscription; handlers: Set<(m: BusMessage) => void>; matches: (subject: string) => boolean }
  >()
  /** Whether NATS leaves this connection's own messages out of its subscriptions: then they are delivered here. */
  const local = (nc as { options?: { noEcho?: boolean } }).options?.noEcho === true
  /** Messages published in this turn, in order, as JSON (and, to deliver here, as published). */
  let queued: Array<{ subject: string; json: string; inService: string; data: unknown }> = []

  function handOut(handlers: Iterable<(m: BusMessage) => void>, message: BusMessage) {
    for (const h of handlers) {
      try {
        h(message)
      } catch (e) {
        logger?.error('bus handler failed', { subject: message.subject, error: String(e) })
      }
    }
  }

  /** Hands this turn's messages to this process's own subscriptions (a connection without echo). */
  function deliverHere(items: ReadonlyArray<{ inService: string; data: unknown }>) {
    for (const item of items)
      for (const entry of shared.values())
        if (entry.matches(item.inService)) handOut(entry.handlers, { subject: item.inService, data: item.data })
  }

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
    if (local && shared.size > 0) deliverHere(items)
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
      queued.push({ subject: onServer(subject), json, inService: subject, data })
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
            const subject = inService(msg.subject)
            for (const one of Array.isArray(batch) ? batch : [data]) handOut(handlers, { subject, data: one })
          },
        })
        entry = { sub, handlers, matches: subjectMatcher(pattern) }
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
