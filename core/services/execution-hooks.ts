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
import type {
  CreateHookEndpointBody,
  DeliveryFilter,
  HookDelivery,
  HookEndpoint,
  RegenerateSecretBody,
  UpdateHookEndpointBody,
} from '../domain/execution-hook.ts'
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

/** Execution hooks: the organization's endpoints that receive run events, and the deliveries sent to them. */
export interface ExecutionHookService {
  /** The organization's endpoints, a page at a time. */
  list(caller: Principal, page: PageRequest): Promise<Page<HookEndpoint>>
  /** One endpoint. */
  get(caller: Principal, id: string): Promise<HookEndpoint>
  /** Deliveries matching a filter, a page at a time. */
  listDeliveries(caller: Principal, filter: DeliveryFilter, page: PageRequest): Promise<Page<HookDelivery>>
  /** One delivery, with its attempts. */
  getDelivery(caller: Principal, id: string): Promise<HookDelivery>
  /** A new endpoint; its signing secret is shown once. */
  create(caller: Principal, body: CreateHookEndpointBody): Promise<{ endpoint: HookEndpoint; signingSecret: string }>
  /** Changes what was given; a new URL passes the same checks as at creation. */
  update(caller: Principal, id: string, body: UpdateHookEndpointBody): Promise<HookEndpoint>
  /** Deletes the endpoint; its delivery records stay readable, and queued ones are not sent. */
  remove(caller: Principal, id: string): Promise<HookEndpoint>
  /** Sends to the endpoint again. */
  enable(caller: Principal, id: string): Promise<HookEndpoint>
  /** Stops sending to the endpoint. */
  disable(caller: Principal, id: string): Promise<HookEndpoint>
  /** A new secret; the old one keeps signing alongside it for `previousSecretTtlSeconds` (default a day). */
  regenerateSecret(
    caller: Principal,
    id: string,
    body?: RegenerateSecretBody,
  ): Promise<{ endpoint: HookEndpoint; signingSecret: string }>
  /** Sends the same record again now; for a delivery that gave up, or one waiting for its next retry. */
  retry(caller: Principal, id: string): Promise<HookDelivery>
  /** A new delivery record of the same event (same webhook-id and body), sent now. */
  replay(caller: Principal, id: string): Promise<HookDelivery>
}

export function createExecutionHookService(deps: ExecutionHookDeps): ExecutionHookService {
  const { store } = deps

  return guarded<ExecutionHookService>(
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
