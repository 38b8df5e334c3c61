/**
 * Records domain events in the journal and lets transactional listeners act in the same
 * transaction (the execution-hook outbox writes its deliveries there, so an event and the
 * deliveries it causes commit together or not at all).
 */
import { type DomainEvent, type RecordedEvent, recordEvents } from '../core/events.ts'
import type { SqlExecutor } from '../core/ports/store.ts'

export type TransactionalListener = (tx: SqlExecutor, events: readonly RecordedEvent[]) => Promise<void>

export interface EventRecorder {
  record(tx: SqlExecutor, events: readonly DomainEvent[]): Promise<RecordedEvent[]>
  listen(listener: TransactionalListener): void
}

export function createEventRecorder(): EventRecorder {
  const listeners: TransactionalListener[] = []
  return {
    async record(tx, events) {
      const recorded = await recordEvents(tx, events)
      for (const listener of listeners) await listener(tx, recorded)
      return recorded
    },
    listen(listener) {
      listeners.push(listener)
    },
  }
}
