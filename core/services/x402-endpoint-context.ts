/**
 * What the use cases of the x402 endpoints (import, calls, discovery) share: their dependencies,
 * and the buyer's side of x402. A buyer sends a request to a paid resource, reads what its 402
 * offers (an offer this installation can pay: the `exact` scheme on a configured network), signs
 * a payment for it from one of the organization's wallets, and reads the settlement the paid
 * answer reports.
 */
import { encodePaymentHeader } from '../domain/x402.ts'
import { badRequest } from '../errors.ts'
import type { ChainConfig } from '../ports/chain.ts'
import type { Clock } from '../ports/clock.ts'
import type { HttpClient, OutboundResponse } from '../ports/http-client.ts'
import type { Ids } from '../ports/ids.ts'
import type { PaymentScheme } from '../ports/payment-scheme.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import type { EndpointRow } from '../store/x402-endpoints.ts'
import type { WalletRow } from '../store/wallets.ts'
import { iso } from '../time.ts'

export interface X402EndpointsDeps {
  store: Store
  clock: Clock
  ids: Ids
  http: HttpClient
  /** The x402 `exact` scheme on the configured networks: what can be paid, and the payments. */
  scheme: PaymentScheme
  secretBox: SecretBox
  /** AUTOMATON_X402_MAX_IMPORT_PRICE: the most an import pays, in the token's smallest unit. */
  maxImportPrice: bigint
  /** The AI model, when configured: it writes an import's summaries, category and tags. */
  ai?: {
    prompt(
      organizationId: string,
      request: { prompt: string; system?: string; schema?: Record<string, unknown>; maxTokens?: number },
      signal?: AbortSignal,
    ): Promise<{ json?: unknown }>
  }
}

/** What a 402 offers that this installation can pay. */
export interface Offer {
  version: 1 | 2
  scheme: string
  chain: ChainConfig
  amount: string
  asset: string
  payTo: string
  maxTimeoutSeconds: number
  description: string
  mimeType: string
  outputSchema: unknown
  extra: { name?: string; version?: string }
}

const unb64 = (text: string) =>
  JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(text.trim()), (c) => c.charCodeAt(0))))

export const parseBody = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export function toEndpoint(r: EndpointRow) {
  const d = JSON.parse(r.details) as Record<string, unknown>
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    category: r.category,
    baseUrl: r.base_url,
    method: r.method,
    mimeType: r.mime_type,
    source: r.source,
    tags: (d.tags as string[]) ?? [],
    useCases: (d.useCases as string[]) ?? [],
    queryParams: d.queryParams ?? {},
    bodyParams: d.bodyParams ?? {},
    headerParams: d.headerParams ?? {},
    defaultQueryParams: d.defaultQueryParams ?? {},
    defaultBody: d.defaultBody ?? {},
    defaultHeaders: d.defaultHeaders ?? {},
    exampleQueryParams: d.exampleQueryParams ?? {},
    exampleBody: d.exampleBody ?? null,
    exampleOutput: d.exampleOutput ?? null,
    outputSchema: d.outputSchema ?? {},
    inputSummary: r.input_summary,
    outputSummary: r.output_summary,
    price: r.price,
    maxAllowedPrice: r.max_allowed_price,
    network: r.network,
    payTo: r.pay_to,
    tokenAddress: r.token_address,
    tokenSymbol: r.token_symbol,
    tokenDecimals: Number(r.token_decimals),
    spentByToken: JSON.parse(r.spent_by_token) as Record<string, string>,
    totalCalls: Number(r.total_calls),
    successCount: Number(r.success_count),
    failureCount: Number(r.failure_count),
    avgResponseMs: Number(r.avg_response_ms),
    lastCalledAt: r.last_called_at === null ? '' : iso(Number(r.last_called_at)),
    lastError: r.last_error ?? '',
    lastErrorAt: r.last_error_at === null ? '' : iso(Number(r.last_error_at)),
    createdAt: iso(Number(r.created_at)),
    updatedAt: iso(Number(r.updated_at)),
  }
}

export /** A body field that must be an http(s) URL: the URL, or a 400 naming the field. */
function httpUrl(raw: string, field: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw badRequest(`${field} must be an http(s) URL`, [{ path: `/${field}`, message: 'not a URL' }])
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw badRequest(`${field} must be an http(s) URL`, [{ path: `/${field}`, message: 'not http(s)' }])
  return url
}

export interface Buyer {
  /** Sends a request, JSON in and out. */
  send(method: string, url: string, body: unknown, headers: Record<string, string>): Promise<OutboundResponse>
  /** What a 402 offers that this installation can pay, or why not. */
  offerOf(response: OutboundResponse): Offer | string
  /** The payment header for an offer, signed with the wallet's key; `idempotencyKey` fixes its nonce. */
  paymentFor(offer: Offer, wallet: WalletRow, idempotencyKey?: string): Promise<[string, string]>
  /** The transaction a paid answer reports, when it does. */
  settlementOf(response: OutboundResponse): string | null
}

export function createBuyer(deps: X402EndpointsDeps): Buyer {
  const { clock } = deps

  /** What a 402 offers that this installation can pay, or why not. */
  function offerOf(response: OutboundResponse): Offer | string {
    let version: 1 | 2 = 1
    let accepts: Array<Record<string, any>> = []
    let resource: Record<string, any> = {}
    if (response.headers['payment-required']) {
      try {
        const v2 = unb64(response.headers['payment-required'])
        version = 2
        accepts = v2.accepts ?? []
        resource = v2.resource ?? {}
      } catch {
        return 'its PAYMENT-REQUIRED header does not decode'
      }
    } else {
      const body = parseBody(response.body) as Record<string, any>
      if (!body || typeof body !== 'object' || !Array.isArray(body.accepts))
        return 'its 402 carries no x402 requirements (accepts)'
      accepts = body.accepts
    }
    const reasons: string[] = []
    for (const a of accepts) {
      if (a.scheme !== 'exact') {
        reasons.push(`scheme ${a.scheme}`)
        continue
      }
      const network = String(a.network ?? '')
      const chain = deps.scheme.networkNamed(network)
      if (!chain) {
        reasons.push(`network ${network} is not configured`)
        continue
      }
      const amount = String(version === 2 ? a.amount : a.maxAmountRequired)
      if (!/^\d+$/.test(amount)) {
        reasons.push('no amount')
        continue
      }
      return {
        version,
        scheme: 'exact',
        chain,
        amount,
        asset: String(a.asset),
        payTo: String(a.payTo),
        maxTimeoutSeconds: Number(a.maxTimeoutSeconds ?? 60),
        description: String(a.description ?? resource.description ?? ''),
        mimeType: String(a.mimeType ?? resource.mimeType ?? 'application/json'),
        outputSchema: a.outputSchema ?? null,
        extra: a.extra ?? {},
      }
    }
    return `it offers nothing this installation can pay (${reasons.join('; ') || 'no requirements'})`
  }

  /** The payment header for an offer, signed with the wallet's key. */
  async function paymentFor(offer: Offer, wallet: WalletRow, idempotencyKey?: string): Promise<[string, string]> {
    const key = await deps.secretBox.open(wallet.sealed_key)
    const now = clock.now()
    // A node's payment takes its nonce from the node's idempotency key: a node executed again after
    // a crash signs the same nonce, which the chain (and a seller) accepts once, so it never pays twice.
    const nonce = idempotencyKey
      ? new Uint8Array(
          await crypto.subtle.digest(
            'SHA-256',
            new TextEncoder().encode(`x402-request:${wallet.address.toLowerCase()}:${idempotencyKey}`),
          ),
        )
      : crypto.getRandomValues(new Uint8Array(32))
    const payload = await deps.scheme.pay(offer.chain.chainId, key, wallet.address, offer, nonce, now)
    return offer.version === 2
      ? [
          'payment-signature',
          encodePaymentHeader({
            x402Version: 2,
            accepted: { scheme: 'exact', network: deps.scheme.caip2(offer.chain) },
            payload,
          }),
        ]
      : ['x-payment', encodePaymentHeader({ x402Version: 1, scheme: 'exact', network: offer.chain.network, payload })]
  }

  function settlementOf(response: OutboundResponse): string | null {
    const header = response.headers['payment-response'] ?? response.headers['x-payment-response']
    if (!header) return null
    try {
      return (unb64(header) as { transaction?: string }).transaction ?? null
    } catch {
      return null
    }
  }

  const send = (method: string, url: string, body: unknown, headers: Record<string, string>) =>
    deps.http.send({
      method,
      url,
      headers: {
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body !== undefined && method !== 'GET' ? JSON.stringify(body) : undefined,
      timeoutMs: 30_000,
    })

  return { send, offerOf, paymentFor, settlementOf }
}
