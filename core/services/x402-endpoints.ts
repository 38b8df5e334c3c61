/**
 * Buying from paid APIs: `POST /v1/x402-endpoints/import` probes a resource (it must answer 402
 * with a requirement this installation can pay: a configured chain, the `exact` scheme), pays it
 * once from one of the organization's wallets, and records the endpoint with metadata taken from
 * the 402 and the paid answer; `maxAllowedPrice` is five times the price. A later call through
 * `call` (the `x402-request` node) pays up to `maxAllowedPrice` and keeps the statistics.
 *
 * One file per use case: x402-endpoint-import.ts, x402-endpoint-calls.ts,
 * x402-endpoint-discovery.ts; what they share (the buyer's side of x402) is x402-endpoint-context.ts.
 */
import { notFound } from '../errors.ts'
import { endpoints } from '../store/x402-endpoints.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'
import { callOperations } from './x402-endpoint-calls.ts'
import { createBuyer, toEndpoint, type X402EndpointsDeps } from './x402-endpoint-context.ts'
import { discoveryOperations } from './x402-endpoint-discovery.ts'
import { importOperations } from './x402-endpoint-import.ts'

export { toEndpoint } from './x402-endpoint-context.ts'
export type { X402EndpointsDeps } from './x402-endpoint-context.ts'

export function createX402Endpoints(deps: X402EndpointsDeps) {
  const { store, clock } = deps
  const buyer = createBuyer(deps)

  return guarded(
    'x402Endpoints',
    {
      list: ['x402:read'],
      get: ['x402:read'],
      discover: ['x402:read'],
      update: ['x402:write'],
      remove: ['x402:write'],
      // An import pays the endpoint once to learn its answer.
      import: ['x402:write', 'wallet:withdraw'],
      // The x402-request node of a run: no caller.
      call: null,
    },
    {
      ...callOperations(deps, buyer),
      ...importOperations(deps, buyer),
      ...discoveryOperations(deps, buyer),

      async list(caller: Principal, page: { limit: number; offset: number }) {
        const rows = await endpoints.list(store, caller.organizationId, page.limit + 1, page.offset)
        return {
          hasMore: rows.length > page.limit,
          items: rows.slice(0, page.limit).map(toEndpoint),
          limit: page.limit,
          offset: page.offset,
        }
      },
      async get(caller: Principal, id: string) {
        const row = await endpoints.byId(store, caller.organizationId, id)
        if (!row) throw notFound('x402 endpoint')
        return toEndpoint(row)
      },
      async update(
        caller: Principal,
        id: string,
        body: { name?: string; description?: string; category?: string; maxAllowedPrice?: string; tags?: string[] },
      ) {
        const row = await endpoints.byId(store, caller.organizationId, id)
        if (!row) throw notFound('x402 endpoint')
        const details = JSON.parse(row.details) as Record<string, unknown>
        if (body.tags) details.tags = body.tags
        await store.write((tx) =>
          endpoints.update(tx, id, {
            name: body.name ?? row.name,
            description: body.description ?? row.description,
            category: body.category ?? row.category,
            max_allowed_price: body.maxAllowedPrice ?? row.max_allowed_price,
            details: JSON.stringify(details),
            updated_at: clock.now(),
          }),
        )
        return toEndpoint((await endpoints.byId(store, caller.organizationId, id))!)
      },
      async remove(caller: Principal, id: string) {
        if ((await store.write((tx) => endpoints.remove(tx, caller.organizationId, id))) === 0)
          throw notFound('x402 endpoint')
        return { id, deleted: true as const }
      },
    },
  )
}

export type X402Endpoints = ReturnType<typeof createX402Endpoints>
