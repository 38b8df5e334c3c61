/**
 * What the execution hook service's use cases share (endpoints, deliveries): their dependencies,
 * the bus subjects that tell delivery workers of a change, and an endpoint of the caller's.
 */
import { notFound } from '../errors.ts'
import type { Bus } from '../ports/bus.ts'
import type { Clock } from '../ports/clock.ts'
import type { HttpClient } from '../ports/http-client.ts'
import type { Ids } from '../ports/ids.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import type { HookUrlPolicy } from '../security/hook-url.ts'
import { type EndpointRow, hookEndpoints } from '../store/hook-endpoints.ts'
import type { Principal } from './auth.ts'

/** Published when an endpoint changes, so caches everywhere drop it: `{ organizationId, endpointId }`. */
export const HOOK_ENDPOINT_CHANGED_SUBJECT = 'automaton.internal.hooks.endpoint-changed'
/** Published when deliveries became due outside the journal (retry, replay): delivery workers look now. */
export const HOOK_DELIVERIES_DUE_SUBJECT = 'automaton.internal.hooks.due'

export interface ExecutionHookDeps {
  store: Store
  bus: Bus
  clock: Clock
  ids: Ids
  http: HttpClient
  secretBox: SecretBox
  policy: HookUrlPolicy
}

/** An endpoint of the caller's organization; 404 otherwise. */
export async function endpointRow(deps: ExecutionHookDeps, caller: Principal, id: string): Promise<EndpointRow> {
  const row = await hookEndpoints.byId(deps.store, caller.organizationId, id)
  if (!row) throw notFound('execution webhook')
  return row
}
