/**
 * Records domain events in the journal and lets transactional listeners act in the same
 * transaction (the execution-hook outbox writes its deliveries there, so an event and the
 * deliveries it causes commit together or not at all).
 */
import { recordEvents } from '../core/domain-events.ts'
import type { EventRecorder, TransactionalListener } from './engine/types.ts'

export type { EventRecorder, TransactionalListener }

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
