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
import { type ImportInput, importOperations } from './x402-endpoint-import.ts'

export { toEndpoint } from './x402-endpoint-context.ts'
export type { X402EndpointsDeps } from './x402-endpoint-context.ts'

/** An imported paid API as the API shows it. */
export type X402Endpoint = ReturnType<typeof toEndpoint>

/** What an organization may change of an imported endpoint. */
export interface X402EndpointUpdate {
  name?: string
  description?: string
  category?: string
  maxAllowedPrice?: string
  tags?: string[]
}

/** A call of an imported endpoint from a run, with its query, body and headers over the endpoint's defaults. */
export interface X402EndpointCall {
  endpointId: string
  queryParams?: Record<string, string>
  body?: unknown
  headers?: Record<string, string>
}

/** A Bazaar resource as discovery lists it: payable when this installation can pay it, and whether it is imported. */
export interface DiscoveredResource {
  resource: string
  type: string
  x402Version: number
  // biome-ignore lint/suspicious/noExplicitAny: the Bazaar's own shape, passed through
  accepts: any[]
  lastUpdated: string
  // biome-ignore lint/suspicious/noExplicitAny: the Bazaar's own shape, passed through
  metadata: any
  price: string
  network: string
  payable: boolean
  importedEndpointId: string | null
}

/** The paid APIs an organization buys from: importing, listing, editing, discovering and calling them. */
export interface X402Endpoints {
  /** `GET /v1/x402-endpoints`: the organization's imported endpoints, a page at a time. */
  list(
    caller: Principal,
    page: { limit: number; offset: number },
  ): Promise<{ hasMore: boolean; items: X402Endpoint[]; limit: number; offset: number }>
  /** `GET /v1/x402-endpoints/{id}`. */
  get(caller: Principal, id: string): Promise<X402Endpoint>
  /** `POST /v1/x402-endpoints/discover`: a Bazaar's resources, marked payable and imported. */
  discover(
    caller: Principal,
    input: { url: string; type?: string; limit?: number; offset?: number },
  ): Promise<{ items: DiscoveredResource[]; pagination: { limit: number; offset: number; total: number } }>
  /** `PATCH /v1/x402-endpoints/{id}`. */
  update(caller: Principal, id: string, body: X402EndpointUpdate): Promise<X402Endpoint>
  /** `DELETE /v1/x402-endpoints/{id}`. */
  remove(caller: Principal, id: string): Promise<{ id: string; deleted: true }>
  /** `POST /v1/x402-endpoints/import`: probes the resource, pays it once, and records the endpoint. */
  import(
    caller: Principal,
    input: ImportInput,
  ): Promise<{
    endpoint: X402Endpoint
    paymentDetails: { amountPaid: string; asset: string; network: string; payer: string; transaction: string | null }
  }>
  /** The `x402-request` node: calls an endpoint, paying up to its maxAllowedPrice from the default wallet. */
  call(
    organizationId: string,
    request: X402EndpointCall,
    signal?: AbortSignal,
    idempotencyKey?: string,
  ): Promise<{
    status: number
    body: unknown
    payment: { transaction: string | null; amount: string; asset: string } | null
  }>
}

export function createX402Endpoints(deps: X402EndpointsDeps): X402Endpoints {
  const { store, clock } = deps
  const buyer = createBuyer(deps)

  return guarded<X402Endpoints>(
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
      async update(caller: Principal, id: string, body: X402EndpointUpdate) {
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
