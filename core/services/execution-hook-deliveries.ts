/**
 * The delivery log's two actions: retry (the same record, sent again now) and replay (a new
 * record of the same event); each tells the delivery workers over the bus.
 */
import type { HookDelivery } from '../domain/execution-hook.ts'
import { conflict, notFound } from '../errors.ts'
import { hookDeliveries, toDelivery } from '../store/hook-deliveries.ts'
import { type EndpointRow, hookEndpoints } from '../store/hook-endpoints.ts'
import type { Principal } from './auth.ts'
import { type ExecutionHookDeps, HOOK_DELIVERIES_DUE_SUBJECT } from './execution-hook-context.ts'

/** The delivery operations of the execution hook service. */
export function deliveryOperations(deps: ExecutionHookDeps) {
  const { store, clock } = deps

  async function assertEnabled(caller: Principal, endpointId: string): Promise<EndpointRow> {
    const endpoint = await hookEndpoints.byId(store, caller.organizationId, endpointId)
    if (!endpoint) throw notFound('execution webhook of this delivery')
    if (endpoint.status !== 'enabled') throw conflict(`the endpoint ${endpointId} is disabled; enable it first`)
    return endpoint
  }

  return {
    /** Sends the same record again now; for a delivery that gave up, or one waiting for its next retry. */
    async retry(caller: Principal, id: string): Promise<HookDelivery> {
      const row = await hookDeliveries.byId(store, caller.organizationId, id)
      if (!row) throw notFound('delivery')
      await assertEnabled(caller, row.endpoint_id)
      const requeued = await store.write((tx) => hookDeliveries.requeue(tx, caller.organizationId, id, clock.now()))
      if (requeued === 0) {
        const state =
          row.status === 'success'
            ? 'was delivered (replay it instead)'
            : row.status === 'pending'
              ? 'has not been sent yet'
              : 'is being sent right now'
        throw conflict(`only a failed delivery, or one waiting for a retry, can be retried; this one ${state}`)
      }
      deps.bus.publish(HOOK_DELIVERIES_DUE_SUBJECT, { deliveryId: id })
      return toDelivery((await hookDeliveries.byId(store, caller.organizationId, id))!)
    },

    /** A new delivery record of the same event (same webhook-id and body), sent now. */
    async replay(caller: Principal, id: string): Promise<HookDelivery> {
      const original = await hookDeliveries.byId(store, caller.organizationId, id)
      if (!original) throw notFound('delivery')
      const endpoint = await assertEnabled(caller, original.endpoint_id)
      const now = clock.now()
      const replayId = deps.ids.next('dlv')
      await store.write((tx) =>
        hookDeliveries.insert(tx, [
          {
            id: replayId,
            organization_id: original.organization_id,
            endpoint_id: original.endpoint_id,
            event_id: original.event_id,
            event_type: original.event_type,
            workflow_id: original.workflow_id,
            run_id: original.run_id,
            node_id: original.node_id,
            payload: original.payload,
            status: 'pending',
            max_retries: endpoint.max_retries,
            due_at: now,
            claimed_by: null,
            replay_of: original.id,
            created_at: now,
            updated_at: now,
          },
        ]),
      )
      deps.bus.publish(HOOK_DELIVERIES_DUE_SUBJECT, { deliveryId: replayId })
      return toDelivery((await hookDeliveries.byId(store, caller.organizationId, replayId))!)
    },
  }
}
