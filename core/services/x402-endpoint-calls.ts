/**
 * Calls of imported x402 endpoints: the `x402-request` node calls one, paying from the
 * organization's default wallet up to the endpoint's maxAllowedPrice (more fails the node and
 * pays nothing), and every call's outcome is kept in the endpoint's statistics.
 */
import type { Clock } from '../ports/clock.ts'
import type { Store } from '../ports/store.ts'
import { type EndpointRow, endpoints } from '../store/x402-endpoints.ts'
import { wallets } from '../store/wallets.ts'
import { type Buyer, parseBody, type X402EndpointsDeps } from './x402-endpoint-context.ts'

/** Records one call's outcome in the endpoint's statistics. */
async function countCall(
  store: Store,
  clock: Clock,
  row: EndpointRow,
  outcome: { ok: boolean; ms: number; spent: bigint; error?: string },
) {
  const at = clock.now()
  const spent = JSON.parse(row.spent_by_token) as Record<string, string>
  if (outcome.spent > 0n) spent[row.token_address] = String(BigInt(spent[row.token_address] ?? '0') + outcome.spent)
  const total = Number(row.total_calls) + 1
  await store.write((tx) =>
    endpoints.update(tx, row.id, {
      total_calls: total,
      success_count: Number(row.success_count) + (outcome.ok ? 1 : 0),
      failure_count: Number(row.failure_count) + (outcome.ok ? 0 : 1),
      avg_response_ms: Math.round((Number(row.avg_response_ms) * (total - 1) + outcome.ms) / total),
      spent_by_token: JSON.stringify(spent),
      last_called_at: at,
      ...(outcome.ok ? {} : { last_error: (outcome.error ?? 'failed').slice(0, 500), last_error_at: at }),
      updated_at: at,
    }),
  )
}

/** The calling operation of the x402 endpoints. */
export function callOperations(deps: X402EndpointsDeps, { send, offerOf, paymentFor, settlementOf }: Buyer) {
  const { store, clock } = deps
  return {
    /**
     * The `x402-request` node: calls an imported endpoint, paying from the organization's default
     * wallet up to the endpoint's maxAllowedPrice (more fails the node and pays nothing).
     */
    async call(
      organizationId: string,
      request: {
        endpointId: string
        queryParams?: Record<string, string>
        body?: unknown
        headers?: Record<string, string>
      },
      signal?: AbortSignal,
      idempotencyKey?: string,
    ) {
      const row = await endpoints.byId(store, organizationId, request.endpointId)
      if (!row) throw new Error(`no x402 endpoint ${request.endpointId} in this organization`)
      const details = JSON.parse(row.details) as {
        defaultQueryParams?: Record<string, string>
        defaultBody?: unknown
        defaultHeaders?: Record<string, string>
      }
      const url = new URL(row.base_url)
      for (const [k, v] of Object.entries({ ...details.defaultQueryParams, ...request.queryParams }))
        url.searchParams.set(k, String(v))
      const body = request.body ?? (row.method === 'GET' ? undefined : details.defaultBody)
      const headers = { ...details.defaultHeaders, ...request.headers }
      const started = clock.now()
      try {
        let response = await send(row.method, url.toString(), body, headers)
        let payment: { transaction: string | null; amount: string; asset: string } | null = null
        if (response.status === 402) {
          const offer = offerOf(response)
          if (typeof offer === 'string') throw new Error(`the endpoint cannot be paid: ${offer}`)
          if (BigInt(offer.amount) > BigInt(row.max_allowed_price))
            throw new Error(
              `the endpoint asks ${offer.amount}, more than its maxAllowedPrice ${row.max_allowed_price}: nothing was paid`,
            )
          const wallet = (await wallets.list(store, organizationId, 100, 0)).find((w) => w.is_default === 1)
          if (!wallet) throw new Error('the organization has no default wallet to pay with')
          const [header, value] = await paymentFor(offer, wallet, idempotencyKey)
          response = await send(row.method, url.toString(), body, { ...headers, [header]: value })
          if (response.status >= 200 && response.status < 300)
            payment = { transaction: settlementOf(response), amount: offer.amount, asset: offer.asset }
        }
        const ok = response.status >= 200 && response.status < 300
        await countCall(store, clock, row, {
          ok,
          ms: clock.now() - started,
          spent: payment ? BigInt(payment.amount) : 0n,
          error: ok ? undefined : `status ${response.status}`,
        })
        if (!ok) throw new Error(`the endpoint answered ${response.status}: ${response.body.slice(0, 300)}`)
        return { status: response.status, body: parseBody(response.body), payment }
      } catch (error) {
        if (signal?.aborted) throw error
        const message = error instanceof Error ? error.message : String(error)
        if (!message.startsWith('the endpoint answered'))
          await countCall(store, clock, row, { ok: false, ms: clock.now() - started, spent: 0n, error: message }).catch(
            () => {},
          )
        throw error
      }
    },
  }
}
