/**
 * The in-process bus of the embedded mode. Handlers run on a later microtask, never inside
 * `publish`, so a publisher is not re-entered; a throwing handler is logged and skipped.
 */
import { type Bus, type BusMessage, subjectMatcher } from '../../core/ports/bus.ts'
import type { Logger } from '../../core/ports/logger.ts'

interface Entry {
  pattern: string
  exact: boolean
  matches: (subject: string) => boolean
  handler: (message: BusMessage) => void
}

export function memoryBus(logger?: Logger): Bus {
  const exact = new Map<string, Set<Entry>>()
  const wildcard = new Set<Entry>()
  let closed = false

  const deliver = (entry: Entry, message: BusMessage) => {
    queueMicrotask(() => {
      try {
        entry.handler(message)
      } catch (error) {
        logger?.error('bus handler failed', { subject: message.subject, error: String(error) })
      }
    })
  }

  return {
    publish(subject, data) {
      if (closed) return
      const message = { subject, data }
      const direct = exact.get(subject)
      if (direct) for (const entry of direct) deliver(entry, message)
      for (const entry of wildcard) if (entry.matches(subject)) deliver(entry, message)
    },
    subscribe(pattern, handler) {
      const entry: Entry = {
        pattern,
        exact: !/(^|\.)[*>](\.|$)/.test(pattern),
        matches: subjectMatcher(pattern),
        handler: handler as Entry['handler'],
      }
      if (entry.exact) {
        let set = exact.get(pattern)
        if (!set) exact.set(pattern, (set = new Set()))
        set.add(entry)
      } else wildcard.add(entry)
      return {
        unsubscribe() {
          if (entry.exact) {
            const set = exact.get(pattern)
            set?.delete(entry)
            if (set?.size === 0) exact.delete(pattern)
          } else wildcard.delete(entry)
        },
      }
    },
    async ping() {
      if (closed) throw new Error('bus is closed')
    },
    async close() {
      closed = true
      exact.clear()
      wildcard.clear()
    },
  }
}
