/**
 * Discovering paid APIs: `POST /v1/x402-endpoints/discover` reads a Bazaar's resources (its
 * discovery list, as `GET /v1/x402/discovery/resources` answers here), marks each payable when
 * this installation can pay it and imported when the organization has it, and remembers the list,
 * so that importing one of them records its source as `provider_bazaar`.
 */
import { badRequest } from '../errors.ts'
import { discovered, endpoints } from '../store/x402-endpoints.ts'
import type { Principal } from './auth.ts'
import { type Buyer, httpUrl, parseBody, type X402EndpointsDeps } from './x402-endpoint-context.ts'

/** The discovery operation of the x402 endpoints. */
export function discoveryOperations(deps: X402EndpointsDeps, { send }: Buyer) {
  const { store, clock } = deps
  return {
    /**
     * `POST /v1/x402-endpoints/discover`: a Bazaar's resources (its discovery list, as
     * `GET /v1/x402/discovery/resources` answers here), each marked payable when this installation
     * can pay it and imported when the organization has it; importing one records its source as
     * `provider_bazaar`.
     */
    async discover(caller: Principal, input: { url: string; type?: string; limit?: number; offset?: number }) {
      const url = httpUrl(input.url, 'url')
      const limit = input.limit ?? 50
      const offset = input.offset ?? 0
      url.searchParams.set('limit', String(limit))
      url.searchParams.set('offset', String(offset))
      if (input.type) url.searchParams.set('type', input.type)
      const answer = await send('GET', url.toString(), undefined, {}).catch((error) => {
        throw badRequest(`the Bazaar could not be reached: ${error instanceof Error ? error.message : String(error)}`, [
          { path: '/url', message: 'unreachable' },
        ])
      })
      const list = parseBody(answer.body) as { items?: unknown; pagination?: { total?: unknown } } | null
      if (answer.status !== 200 || !list || typeof list !== 'object' || !Array.isArray(list.items)) {
        throw badRequest(`the url answered ${answer.status} without a Bazaar list ({ items: [...] })`, [
          { path: '/url', message: 'not a Bazaar discovery list' },
        ])
      }
      const items = (list.items as Array<Record<string, any>>)
        .filter((i) => i && typeof i.resource === 'string')
        .slice(0, limit)
      const payable = (accepts: unknown) =>
        Array.isArray(accepts) &&
        accepts.some(
          (a: Record<string, any>) => a?.scheme === 'exact' && deps.scheme.networkNamed(a.network) !== undefined,
        )
      const resources = await Promise.all(
        items.map(async (i) => {
          const target = (() => {
            try {
              const u = new URL(i.resource)
              return `${u.origin}${u.pathname}`
            } catch {
              return i.resource as string
            }
          })()
          const first = Array.isArray(i.accepts) ? (i.accepts[0] as Record<string, any> | undefined) : undefined
          const imported =
            (await endpoints.byTarget(store, caller.organizationId, target, 'POST')) ??
            (await endpoints.byTarget(store, caller.organizationId, target, 'GET'))
          return {
            resource: i.resource as string,
            type: String(i.type ?? 'http'),
            x402Version: Number(i.x402Version ?? 1),
            accepts: Array.isArray(i.accepts) ? i.accepts : [],
            lastUpdated: String(i.lastUpdated ?? ''),
            metadata: typeof i.metadata === 'object' && i.metadata !== null ? i.metadata : {},
            price: first ? String(first.maxAmountRequired ?? first.amount ?? '') : '',
            network: first ? String(first.network ?? '') : '',
            payable: payable(i.accepts),
            importedEndpointId: imported?.id ?? null,
          }
        }),
      )
      await store.write((tx) =>
        discovered.remember(
          tx,
          caller.organizationId,
          `${url.origin}${url.pathname}`,
          resources.map((r) => {
            try {
              const u = new URL(r.resource)
              return `${u.origin}${u.pathname}`
            } catch {
              return r.resource
            }
          }),
          clock.now(),
        ),
      )
      const total = Number(list.pagination?.total)
      return {
        items: resources,
        pagination: { limit, offset, total: Number.isFinite(total) ? total : offset + resources.length },
      }
    },
  }
}
