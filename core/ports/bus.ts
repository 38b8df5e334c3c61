/**
 * The bus port: fire-and-forget broadcast of events between the parts of the service and,
 * scaled out, between processes.
 *
 * Subjects are dot-separated tokens; a subscription pattern may use `*` for one token and
 * `>` for the rest, as NATS does. Delivery is at-most-once: durable facts live in the store
 * (the run journal, the outbox), and the bus only tells listeners that something happened.
 */
export interface BusMessage<T = unknown> {
  readonly subject: string
  readonly data: T
}

export interface Subscription {
  unsubscribe(): void
}

export interface Bus {
  publish(subject: string, data: unknown): void
  subscribe<T = unknown>(pattern: string, handler: (message: BusMessage<T>) => void): Subscription
  /** Throws when the bus cannot be reached. */
  ping(): Promise<void>
  close(): Promise<void>
}

/**
 * A NATS-style pattern compiled once into a test of subjects, for buses that check every published
 * subject against their subscriptions. The common `a.b.>` needs no splitting at all: it
 * matches exactly the subjects that start with `a.b.`.
 */
export function subjectMatcher(pattern: string): (subject: string) => boolean {
  if (pattern === '>') return () => true
  const p = pattern.split('.')
  const wild = p.findIndex((token) => token === '*' || token === '>')
  if (wild < 0) return (subject) => subject === pattern
  if (wild === p.length - 1 && p[wild] === '>') {
    const prefix = pattern.slice(0, -1)
    return (subject) => subject.startsWith(prefix)
  }
  return (subject) => {
    if (subject === pattern) return true
    const s = subject.split('.')
    for (let i = 0; i < p.length; i++) {
      if (p[i] === '>') return s.length > i
      if (i >= s.length) return false
      if (p[i] !== '*' && p[i] !== s[i]) return false
    }
    return p.length === s.length
  }
}
