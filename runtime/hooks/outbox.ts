/**
 * The execution-hook outbox: a transactional listener of the event recorder that writes one
 * delivery row per (run or node event, enabled endpoint of its organization that takes the
 * event type), in the transaction that records the event. An event and its deliveries commit
 * together or not at all, so a crash loses none. It runs inside every journal transaction: for
 * an organization without endpoints it costs a map lookup.
 *
 * When this process's delivery worker has room, the rows are written already leased to it and
 * handed over for sending as soon as the event is published (after the commit), which saves
 * claiming them again. Otherwise they are written due now, for any worker to claim.
 */
import { isHookEventType } from '../../core/domain/execution-hook.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { Ids } from '../../core/ports/ids.ts'
import { hookDeliveries, type NewDelivery } from '../../core/store/hook-deliveries.ts'
import type { TransactionalListener } from '../event-recorder.ts'
import type { EndpointDirectory, Subscriber } from './endpoints.ts'
import { hookEventId, hookPayload } from './payload.ts'

/** The local delivery worker, as the outbox hands rows to it. */
export interface Handoff {
  readonly workerId: string
  readonly leaseMs: number
  /** Whether the worker can start `count` more deliveries now. */
  hasRoom(count: number): boolean
  /** Rows leased to the worker in the transaction of event `eventId`; sent once that event is published. */
  expect(eventId: number, rows: readonly NewDelivery[]): void
}

export function createOutbox(deps: {
  directory: EndpointDirectory
  ids: Ids
  clock: Clock
  handoff?: Handoff
}): TransactionalListener {
  return async (tx, recorded) => {
    let all: NewDelivery[] | null = null
    for (const event of recorded) {
      if (!isHookEventType(event.type)) continue
      const found = deps.directory.subscribers(tx, event.organizationId)
      const subscribers: readonly Subscriber[] = Array.isArray(found) ? found : await found
      if (subscribers.length === 0) continue
      const rows: NewDelivery[] = []
      let payload: string | null = null
      const now = deps.clock.now()
      for (const endpoint of subscribers) {
        if (endpoint.types && !endpoint.types.has(event.type)) continue
        payload ??= hookPayload(event)
        rows.push({
          id: deps.ids.next('dlv'),
          organization_id: event.organizationId,
          endpoint_id: endpoint.id,
          event_id: hookEventId(event),
          event_type: event.type,
          workflow_id: event.workflowId,
          run_id: event.runId,
          node_id: event.nodeId,
          payload,
          status: 'pending',
          max_retries: endpoint.maxRetries,
          due_at: now,
          claimed_by: null,
          replay_of: null,
          created_at: now,
          updated_at: now,
        })
      }
      if (rows.length === 0) continue
      const handoff = deps.handoff
      if (handoff?.hasRoom(rows.length)) {
        for (const row of rows) {
          row.claimed_by = handoff.workerId
          row.due_at = now + handoff.leaseMs
        }
        handoff.expect(event.id, rows)
      }
      ;(all ??= []).push(...rows)
    }
    if (all) await hookDeliveries.insert(tx, all)
  }
}
