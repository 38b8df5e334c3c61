/**
 * The bus over NATS core subjects (at-most-once, like the port promises). Messages are JSON.
 * Subscribing the same pattern twice in one process shares one NATS subscription.
 */
import type { NatsConnection, Subscription as NatsSubscription } from '@nats-io/transport-node'
import type { Bus, BusMessage } from '../../core/ports/bus.ts'
import type { Logger } from '../../core/ports/logger.ts'

export function natsBus(nc: NatsConnection, logger?: Logger): Bus {
  const encoder = new TextEncoder()
  const decoder = new TextDecoder()
  const shared = new Map<string, { sub: NatsSubscription; handlers: Set<(m: BusMessage) => void> }>()

  return {
    publish(subject, data) {
      if (nc.isClosed()) return
      try {
        nc.publish(subject, encoder.encode(JSON.stringify(data)))
      } catch (error) {
        logger?.warn('could not publish on the bus', { subject, error: String(error) })
      }
    },
    subscribe<T>(pattern: string, handler: (message: BusMessage<T>) => void) {
      let entry = shared.get(pattern)
      if (!entry) {
        const handlers = new Set<(m: BusMessage) => void>()
        const sub = nc.subscribe(pattern, {
          callback: (error, msg) => {
            if (error) return logger?.warn('bus subscription error', { pattern, error: String(error) })
            let data: unknown
            try {
              data = JSON.parse(decoder.decode(msg.data))
            } catch {
              return
            }
            for (const h of handlers) {
              try {
                h({ subject: msg.subject, data })
              } catch (e) {
                logger?.error('bus handler failed', { subject: msg.subject, error: String(e) })
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
      for (const { sub } of shared.values()) sub.unsubscribe()
      shared.clear()
    },
  }
}
