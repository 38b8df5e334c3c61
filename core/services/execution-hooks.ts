/**
 * Execution hooks as callers manage them: endpoints (created only for URLs the SSRF guard
 * accepts, with a `whsec_` signing secret shown once and sealed at rest) and the delivery log
 * (read, retry the same record, replay as a new one). Sending is the delivery worker's job
 * (runtime/hooks); this service only tells it, over the bus, that something changed.
 *
 * This file keeps the factory, its operation table and the reads; the use cases have files of their
 * own (execution-hook-endpoints.ts, execution-hook-deliveries.ts), sharing execution-hook-context.ts.
 */
import { type Page, type PageRequest, toPage } from '../domain/common.ts'
import type { DeliveryFilter, HookDelivery, HookEndpoint } from '../domain/execution-hook.ts'
import { notFound } from '../errors.ts'
import { hookDeliveries, toDelivery } from '../store/hook-deliveries.ts'
import { hookEndpoints, toEndpoint } from '../store/hook-endpoints.ts'
import type { Principal } from './auth.ts'
import { endpointRow, type ExecutionHookDeps } from './execution-hook-context.ts'
import { deliveryOperations } from './execution-hook-deliveries.ts'
import { endpointOperations } from './execution-hook-endpoints.ts'
import { guarded } from './operations.ts'

export {
  type ExecutionHookDeps,
  HOOK_DELIVERIES_DUE_SUBJECT,
  HOOK_ENDPOINT_CHANGED_SUBJECT,
} from './execution-hook-context.ts'

export function createExecutionHookService(deps: ExecutionHookDeps) {
  const { store } = deps

  return guarded(
    'executionHooks',
    {
      list: ['execution:webhook'],
      get: ['execution:webhook'],
      listDeliveries: ['execution:webhook'],
      getDelivery: ['execution:webhook'],
      create: ['execution:webhook'],
      update: ['execution:webhook'],
      remove: ['execution:webhook'],
      enable: ['execution:webhook'],
      disable: ['execution:webhook'],
      regenerateSecret: ['execution:webhook'],
      retry: ['execution:webhook'],
      replay: ['execution:webhook'],
    },
    {
      async list(caller: Principal, page: PageRequest): Promise<Page<HookEndpoint>> {
        return toPage((await hookEndpoints.list(store, caller.organizationId, page)).map(toEndpoint), page)
      },

      async get(caller: Principal, id: string): Promise<HookEndpoint> {
        return toEndpoint(await endpointRow(deps, caller, id))
      },

      async listDeliveries(caller: Principal, filter: DeliveryFilter, page: PageRequest): Promise<Page<HookDelivery>> {
        return toPage(
          (await hookDeliveries.list(store, caller.organizationId, filter, page)).map((r) => toDelivery(r)),
          page,
        )
      },

      async getDelivery(caller: Principal, id: string): Promise<HookDelivery> {
        const row = await hookDeliveries.byId(store, caller.organizationId, id)
        if (!row) throw notFound('delivery')
        return toDelivery(row, true)
      },

      ...endpointOperations(deps),
      ...deliveryOperations(deps),
    },
  )
}

export type ExecutionHookService = ReturnType<typeof createExecutionHookService>
