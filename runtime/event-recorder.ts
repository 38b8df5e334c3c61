/**
 * Records domain events in the journal and lets transactional listeners act in the same
 * transaction (the execution-hook outbox writes its deliveries there, so an event and the
 * deliveries it causes commit together or not at all).
 */
import { recordEventsWith } from '../core/domain-events.ts'
import type { EventRecorder, TransactionalListener } from './engine/types.ts'

export type { EventRecorder, TransactionalListener }

export function createEventRecorder(): EventRecorder {
  const listeners: TransactionalListener[] = []
  const recorder: EventRecorder = {
    async record(tx, events) {
      return (await recorder.recordWith(tx, events, [])).recorded
    },
    async recordWith(tx, events, also) {
      const written = await recordEventsWith(tx, events, also)
      for (const listener of listeners) await listener(tx, written.recorded)
      return written
    },
    listen(listener) {
      listeners.push(listener)
    },
  }
  return recorder
}
