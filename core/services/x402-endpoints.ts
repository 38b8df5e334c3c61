/**
 * Buying from paid APIs: `POST /v1/x402-endpoints/import` probes a resource (it must answer 402
 * with a requirement this installation can pay: a configured chain, the `exact` scheme), pays it
 * once from one of the organization's wallets, and records the endpoint with metadata taken from
 * the 402 and the paid answer; `maxAllowedPrice` is five times the price. A later call through
 * `call` (the `x402-request` node) pays up to `maxAllowedPrice` and keeps the statistics.
 */
import { encodePaymentHeader } from '../domain/x402.ts'
import { badRequest, conflict, notFound } from '../errors.ts'
import type { Chains, ChainConfig } from '../ports/chain.ts'
import type { Clock } from '../ports/clock.ts'
import type { HttpClient, OutboundResponse } from '../ports/http-client.ts'
import type { Ids } from '../ports/ids.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import { discovered, type EndpointRow, endpoints } from '../store/x402-endpoints.ts'
import { type WalletRow, wallets } from '../store/wallets.ts'
import { iso } from '../time.ts'
import type { Principal } from './auth.ts'

interface Offer {
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

const unb64 = (text: string) => JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(text.trim()), (c) => c.charCodeAt(0))))

/** A JSON Schema inferred from an example value. */
function schemaOf(value: unknown): Record<string, unknown> {
  if (value === null) return { type: 'null' }
  if (Array.isArray(value)) return { type: 'array', ...(value.length ? { items: schemaOf(value[0]) } : {}) }
  if (typeof value === 'object') return { type: 'object', properties: Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, schemaOf(v)])) }
  return { type: typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value }
}

const parseBody = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export function toEndpoint(r: EndpointRow) {
  const d = JSON.parse(r.details) as Record<string, unknown>
  return {
    id: r.id, name: r.name, description: r.description, category: r.category, baseUrl: r.base_url, method: r.method, mimeType: r.mime_type, source: r.source,
    tags: (d.tags as string[]) ?? [], useCases: (d.useCases as string[]) ?? [],
    queryParams: d.queryParams ?? {}, bodyParams: d.bodyParams ?? {}, headerParams: d.headerParams ?? {},
    defaultQueryParams: d.defaultQueryParams ?? {}, defaultBody: d.defaultBody ?? {}, defaultHeaders: d.defaultHeaders ?? {},
    exampleQueryParams: d.exampleQueryParams ?? {}, exampleBody: d.exampleBody ?? null, exampleOutput: d.exampleOutput ?? null, outputSchema: d.outputSchema ?? {},
    inputSummary: r.input_summary, outputSummary: r.output_summary, price: r.price, maxAllowedPrice: r.max_allowed_price,
    network: r.network, payTo: r.pay_to, tokenAddress: r.token_address, tokenSymbol: r.token_symbol, tokenDecimals: Number(r.token_decimals),
    spentByToken: JSON.parse(r.spent_by_token) as Record<string, string>, totalCalls: Number(r.total_calls), successCount: Number(r.success_count),
    failureCount: Number(r.failure_count), avgResponseMs: Number(r.avg_response_ms),
    lastCalledAt: r.last_called_at === null ? '' : iso(Number(r.last_called_at)), lastError: r.last_error ?? '', lastErrorAt: r.last_error_at === null ? '' : iso(Number(r.last_error_at)),
    createdAt: iso(Number(r.created_at)), updatedAt: iso(Number(r.updated_at)),
  }
}

/** A body field that must be an http(s) URL: the URL, or a 400 naming the field. */
function httpUrl(raw: string, field: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw badRequest(`${field} must be an http(s) URL`, [{ path: `/${field}`, message: 'not a URL' }])
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest(`${field} must be an http(s) URL`, [{ path: `/${field}`, message: 'not http(s)' }])
  return url
}

export function createX402Endpoints(deps: {
  store: Store
  clock: Clock
  ids: Ids
  http: HttpClient
  chains: Chains
  secretBox: SecretBox
  /** AUTOMATON_X402_MAX_IMPORT_PRICE: the most an import pays, in the token's smallest unit. */
  maxImportPrice: bigint
  /** The AI model, when configured: it writes an import's summaries, category and tags. */
  ai?: { prompt(organizationId: string, request: { prompt: string; system?: string; schema?: Record<string, unknown>; maxTokens?: number }, signal?: AbortSignal): Promise<{ json?: unknown }> }
}) {
  const { store, clock } = deps

  /** What the model says about an imported resource; null without a model, or when it fails (then they are derived). */
  async function describedByAi(organizationId: string, facts: Record<string, unknown>): Promise<{ inputSummary: string; outputSummary: string; category: string; tags: string[] } | null> {
    if (!deps.ai) return null
    try {
      const { json } = await deps.ai.prompt(organizationId, {
        system: 'You catalogue paid HTTP APIs for workflow authors. Be short and concrete.',
        prompt: `Describe this paid API for a catalogue: what it takes, what it answers, one category word, and up to 5 lowercase tags.\n${JSON.stringify(facts).slice(0, 6000)}`,
        schema: {
          type: 'object', required: ['inputSummary', 'outputSummary', 'category', 'tags'],
          properties: { inputSummary: { type: 'string' }, outputSummary: { type: 'string' }, category: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
        },
        maxTokens: 400,
      }, AbortSignal.timeout(20_000))
      const j = json as Record<string, unknown> | undefined
      if (!j || typeof j.inputSummary !== 'string' || typeof j.outputSummary !== 'string') return null
      const tags = Array.isArray(j.tags) ? j.tags.filter((t): t is string => typeof t === 'string').map((t) => t.toLowerCase().trim().slice(0, 40)).filter(Boolean).slice(0, 5) : []
      const category = typeof j.category === 'string' && j.category.trim() ? j.category.trim().toLowerCase().slice(0, 40) : 'api'
      return { inputSummary: j.inputSummary.slice(0, 500), outputSummary: j.outputSummary.slice(0, 500), category, tags }
    } catch {
      return null
    }
  }

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
      if (!body || typeof body !== 'object' || !Array.isArray(body.accepts)) return 'its 402 carries no x402 requirements (accepts)'
      accepts = body.accepts
    }
    const reasons: string[] = []
    for (const a of accepts) {
      if (a.scheme !== 'exact') {
        reasons.push(`scheme ${a.scheme}`)
        continue
      }
      const network = String(a.network ?? '')
      const chain = deps.chains.list().find((c) => c.network === network || `eip155:${c.chainId}` === network)
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
        version, scheme: 'exact', chain, amount, asset: String(a.asset), payTo: String(a.payTo), maxTimeoutSeconds: Number(a.maxTimeoutSeconds ?? 60),
        description: String(a.description ?? resource.description ?? ''), mimeType: String(a.mimeType ?? resource.mimeType ?? 'application/json'),
        outputSchema: a.outputSchema ?? null, extra: a.extra ?? {},
      }
    }
    return `it offers nothing this installation can pay (${reasons.join('; ') || 'no requirements'})`
  }

  /** The payment header for an offer, signed with the wallet's key. */
  async function paymentFor(offer: Offer, wallet: WalletRow, idempotencyKey?: string): Promise<[string, string]> {
    const key = await deps.secretBox.open(wallet.sealed_key)
    const now = Math.floor(clock.now() / 1000)
    // A node's payment takes its nonce from the node's idempotency key: a node executed again after
    // a crash signs the same nonce, which the chain (and a seller) accepts once, so it never pays twice.
    const bytes = idempotencyKey
      ? new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`x402-request:${wallet.address.toLowerCase()}:${idempotencyKey}`)))
      : crypto.getRandomValues(new Uint8Array(32))
    const nonce = `0x${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`
    const authorization = {
      from: wallet.address, to: offer.payTo, value: offer.amount, validAfter: String(now - 60), validBefore: String(now + Math.max(60, offer.maxTimeoutSeconds)), nonce,
    }
    const signature = await deps.chains.signAuthorization(offer.chain.chainId, key, {
      address: offer.asset, name: offer.extra.name ?? 'USD Coin', version: offer.extra.version ?? '2',
    }, authorization)
    const payload = { signature, authorization }
    return offer.version === 2
      ? ['payment-signature', encodePaymentHeader({ x402Version: 2, accepted: { scheme: 'exact', network: `eip155:${offer.chain.chainId}` }, payload })]
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

  async function walletFor(caller: Principal, address?: string): Promise<WalletRow> {
    const wallet = address
      ? await wallets.byAddress(store, caller.organizationId, address)
      : (await wallets.list(store, caller.organizationId, 100, 0)).find((w) => w.is_default === 1)
    if (!wallet) throw badRequest(address ? 'no wallet of this organization has that address' : 'the organization has no default wallet: create one first', [{ path: '/walletAddress', message: 'unknown wallet' }])
    return wallet
  }

  const send = (method: string, url: string, body: unknown, headers: Record<string, string>) =>
    deps.http.send({
      method, url, headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body !== undefined && method !== 'GET' ? JSON.stringify(body) : undefined, timeoutMs: 30_000,
    })

  /** Records one call's outcome in the endpoint's statistics. */
  async function countCall(row: EndpointRow, outcome: { ok: boolean; ms: number; spent: bigint; error?: string }) {
    const at = clock.now()
    const spent = JSON.parse(row.spent_by_token) as Record<string, string>
    if (outcome.spent > 0n) spent[row.token_address] = String(BigInt(spent[row.token_address] ?? '0') + outcome.spent)
    const total = Number(row.total_calls) + 1
    await store.write((tx) => endpoints.update(tx, row.id, {
      total_calls: total, success_count: Number(row.success_count) + (outcome.ok ? 1 : 0), failure_count: Number(row.failure_count) + (outcome.ok ? 0 : 1),
      avg_response_ms: Math.round((Number(row.avg_response_ms) * (total - 1) + outcome.ms) / total), spent_by_token: JSON.stringify(spent),
      last_called_at: at, ...(outcome.ok ? {} : { last_error: (outcome.error ?? 'failed').slice(0, 500), last_error_at: at }), updated_at: at,
    }))
  }

  return {
    /**
     * The `x402-request` node: calls an imported endpoint, paying from the organization's default
     * wallet up to the endpoint's maxAllowedPrice (more fails the node and pays nothing).
     */
    async call(organizationId: string, request: { endpointId: string; queryParams?: Record<string, string>; body?: unknown; headers?: Record<string, string> }, signal?: AbortSignal, idempotencyKey?: string) {
      const row = await endpoints.byId(store, organizationId, request.endpointId)
      if (!row) throw new Error(`no x402 endpoint ${request.endpointId} in this organization`)
      const details = JSON.parse(row.details) as { defaultQueryParams?: Record<string, string>; defaultBody?: unknown; defaultHeaders?: Record<string, string> }
      const url = new URL(row.base_url)
      for (const [k, v] of Object.entries({ ...details.defaultQueryParams, ...request.queryParams })) url.searchParams.set(k, String(v))
      const body = request.body ?? (row.method === 'GET' ? undefined : details.defaultBody)
      const headers = { ...details.defaultHeaders, ...request.headers }
      const started = clock.now()
      try {
        let response = await send(row.method, url.toString(), body, headers)
        let payment: { transaction: string | null; amount: string; asset: string } | null = null
        if (response.status === 402) {
          const offer = offerOf(response)
          if (typeof offer === 'string') throw new Error(`the endpoint cannot be paid: ${offer}`)
          if (BigInt(offer.amount) > BigInt(row.max_allowed_price)) throw new Error(`the endpoint asks ${offer.amount}, more than its maxAllowedPrice ${row.max_allowed_price}: nothing was paid`)
          const wallet = (await wallets.list(store, organizationId, 100, 0)).find((w) => w.is_default === 1)
          if (!wallet) throw new Error('the organization has no default wallet to pay with')
          const [header, value] = await paymentFor(offer, wallet, idempotencyKey)
          response = await send(row.method, url.toString(), body, { ...headers, [header]: value })
          if (response.status >= 200 && response.status < 300) payment = { transaction: settlementOf(response), amount: offer.amount, asset: offer.asset }
        }
        const ok = response.status >= 200 && response.status < 300
        await countCall(row, { ok, ms: clock.now() - started, spent: payment ? BigInt(payment.amount) : 0n, error: ok ? undefined : `status ${response.status}` })
        if (!ok) throw new Error(`the endpoint answered ${response.status}: ${response.body.slice(0, 300)}`)
        return { status: response.status, body: parseBody(response.body), payment }
      } catch (error) {
        if (signal?.aborted) throw error
        const message = error instanceof Error ? error.message : String(error)
        if (!message.startsWith('the endpoint answered')) await countCall(row, { ok: false, ms: clock.now() - started, spent: 0n, error: message }).catch(() => {})
        throw error
      }
    },

    async import(caller: Principal, input: { resourceUrl: string; method?: string; body?: Record<string, unknown>; name?: string; description?: string; walletAddress?: string }) {
      const url = httpUrl(input.resourceUrl, 'resourceUrl')
      const method = input.method ?? (input.body ? 'POST' : 'GET')
      const baseUrl = `${url.origin}${url.pathname}`
      if (await endpoints.byTarget(store, caller.organizationId, baseUrl, method)) throw conflict(`${method} ${baseUrl} is imported already; nothing was paid`)
      const wallet = await walletFor(caller, input.walletAddress)
      // Probe: it must ask for a payment this installation can make.
      const probe = await send(method, input.resourceUrl, input.body, {}).catch((error) => {
        throw badRequest(`the resource could not be reached: ${error instanceof Error ? error.message : String(error)}`, [{ path: '/resourceUrl', message: 'unreachable' }])
      })
      if (probe.status !== 402) throw badRequest(`the resource answered ${probe.status}, not 402: it is not a paid x402 resource`, [{ path: '/resourceUrl', message: `answered ${probe.status}` }])
      const offer = offerOf(probe)
      if (typeof offer === 'string') throw badRequest(`the resource cannot be paid: ${offer}`, [{ path: '/resourceUrl', message: offer }])
      if (BigInt(offer.amount) > deps.maxImportPrice) {
        throw badRequest(`the resource asks ${offer.amount}, more than AUTOMATON_X402_MAX_IMPORT_PRICE (${deps.maxImportPrice})`, [{ path: '/resourceUrl', message: 'too expensive to import' }])
      }
      // Pay once, and keep what it answers as the example.
      const [header, value] = await paymentFor(offer, wallet)
      const started = clock.now()
      const paid = await send(method, input.resourceUrl, input.body, { [header]: value })
      if (paid.status < 200 || paid.status >= 300) {
        const reason = (parseBody(paid.body) as { error?: string })?.error ?? `status ${paid.status}`
        throw badRequest(`the resource refused the payment: ${reason}`, [{ path: '/resourceUrl', message: String(reason) }])
      }
      const transaction = settlementOf(paid)
      const output = parseBody(paid.body)
      const at = clock.now()
      const schema = (offer.outputSchema as { output?: unknown } | null)?.output ?? schemaOf(output)
      const inputSchema = (offer.outputSchema as { input?: { schema?: { properties?: Record<string, { type?: string; description?: string }>; required?: string[] } } } | null)?.input?.schema
      const bodyParams = Object.fromEntries(Object.entries(inputSchema?.properties ?? {}).map(([k, v]) => [k, { type: v.type ?? 'string', description: v.description ?? '', required: (inputSchema?.required ?? []).includes(k) }]))
      const description = input.description ?? offer.description
      const described = await describedByAi(caller.organizationId, { url: baseUrl, method, description, inputSchema: inputSchema ?? null, exampleBody: input.body ?? null, exampleOutput: output })
      const row: EndpointRow = {
        id: deps.ids.next('x402'), organization_id: caller.organizationId, name: (input.name ?? (description || `${method} ${url.host}${url.pathname}`)).slice(0, 100),
        description: description.slice(0, 500), category: described?.category ?? 'api', base_url: baseUrl, method, mime_type: offer.mimeType, source: (await discovered.has(store, caller.organizationId, baseUrl)) ? 'provider_bazaar' : 'user_import',
        details: JSON.stringify({
          tags: described?.tags ?? [], useCases: [], queryParams: {}, bodyParams, headerParams: {}, defaultQueryParams: Object.fromEntries(url.searchParams), defaultBody: input.body ?? {}, defaultHeaders: {},
          exampleQueryParams: Object.fromEntries(url.searchParams), exampleBody: input.body ?? null, exampleOutput: output, outputSchema: schema,
        }),
        input_summary: described?.inputSummary ?? (Object.keys(bodyParams).length ? `takes ${Object.keys(bodyParams).join(', ')}` : input.body ? `takes a JSON body like ${JSON.stringify(input.body).slice(0, 200)}` : 'takes no input'),
        output_summary: described?.outputSummary ?? (typeof output === 'object' && output !== null ? `answers ${Object.keys(output as Record<string, unknown>).slice(0, 10).join(', ')}` : 'answers text'),
        price: offer.amount, max_allowed_price: String(BigInt(offer.amount) * 5n), network: offer.chain.network, pay_to: offer.payTo,
        token_address: offer.asset, token_symbol: offer.extra.name === 'USD Coin' ? 'USDC' : '', token_decimals: 6,
        spent_by_token: JSON.stringify({ [offer.asset]: offer.amount }), total_calls: 1, success_count: 1, failure_count: 0, avg_response_ms: at - started,
        last_called_at: at, last_error: null, last_error_at: null, created_at: at, updated_at: at,
      }
      try {
        await store.write((tx) => endpoints.insert(tx, row))
      } catch (error) {
        if (await endpoints.byTarget(store, caller.organizationId, baseUrl, method)) throw conflict(`${method} ${baseUrl} was imported meanwhile`)
        throw error
      }
      return {
        endpoint: toEndpoint(row),
        paymentDetails: { amountPaid: offer.amount, asset: offer.asset, network: offer.chain.network, payer: wallet.address, transaction },
      }
    },

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
        throw badRequest(`the Bazaar could not be reached: ${error instanceof Error ? error.message : String(error)}`, [{ path: '/url', message: 'unreachable' }])
      })
      const list = parseBody(answer.body) as { items?: unknown; pagination?: { total?: unknown } } | null
      if (answer.status !== 200 || !list || typeof list !== 'object' || !Array.isArray(list.items)) {
        throw badRequest(`the url answered ${answer.status} without a Bazaar list ({ items: [...] })`, [{ path: '/url', message: 'not a Bazaar discovery list' }])
      }
      const items = (list.items as Array<Record<string, any>>).filter((i) => i && typeof i.resource === 'string').slice(0, limit)
      const payable = (accepts: unknown) => Array.isArray(accepts) && accepts.some((a: Record<string, any>) =>
        a?.scheme === 'exact' && deps.chains.list().some((c) => c.network === a.network || `eip155:${c.chainId}` === a.network))
      const resources = await Promise.all(items.map(async (i) => {
        const target = (() => {
          try {
            const u = new URL(i.resource)
            return `${u.origin}${u.pathname}`
          } catch {
            return i.resource as string
          }
        })()
        const first = Array.isArray(i.accepts) ? (i.accepts[0] as Record<string, any> | undefined) : undefined
        const imported = (await endpoints.byTarget(store, caller.organizationId, target, 'POST')) ?? (await endpoints.byTarget(store, caller.organizationId, target, 'GET'))
        return {
          resource: i.resource as string, type: String(i.type ?? 'http'), x402Version: Number(i.x402Version ?? 1), accepts: Array.isArray(i.accepts) ? i.accepts : [],
          lastUpdated: String(i.lastUpdated ?? ''), metadata: typeof i.metadata === 'object' && i.metadata !== null ? i.metadata : {},
          price: first ? String(first.maxAmountRequired ?? first.amount ?? '') : '', network: first ? String(first.network ?? '') : '',
          payable: payable(i.accepts), importedEndpointId: imported?.id ?? null,
        }
      }))
      await store.write((tx) => discovered.remember(tx, caller.organizationId, `${url.origin}${url.pathname}`, resources.map((r) => {
        try {
          const u = new URL(r.resource)
          return `${u.origin}${u.pathname}`
        } catch {
          return r.resource
        }
      }), clock.now()))
      const total = Number(list.pagination?.total)
      return { items: resources, pagination: { limit, offset, total: Number.isFinite(total) ? total : offset + resources.length } }
    },

    async list(caller: Principal, page: { limit: number; offset: number }) {
      const rows = await endpoints.list(store, caller.organizationId, page.limit + 1, page.offset)
      return { hasMore: rows.length > page.limit, items: rows.slice(0, page.limit).map(toEndpoint), limit: page.limit, offset: page.offset }
    },
    async get(caller: Principal, id: string) {
      const row = await endpoints.byId(store, caller.organizationId, id)
      if (!row) throw notFound('x402 endpoint')
      return toEndpoint(row)
    },
    async update(caller: Principal, id: string, body: { name?: string; description?: string; category?: string; maxAllowedPrice?: string; tags?: string[] }) {
      const row = await endpoints.byId(store, caller.organizationId, id)
      if (!row) throw notFound('x402 endpoint')
      const details = JSON.parse(row.details) as Record<string, unknown>
      if (body.tags) details.tags = body.tags
      await store.write((tx) => endpoints.update(tx, id, {
        name: body.name ?? row.name, description: body.description ?? row.description, category: body.category ?? row.category,
        max_allowed_price: body.maxAllowedPrice ?? row.max_allowed_price, details: JSON.stringify(details), updated_at: clock.now(),
      }))
      return toEndpoint((await endpoints.byId(store, caller.organizationId, id))!)
    },
    async remove(caller: Principal, id: string) {
      if ((await store.write((tx) => endpoints.remove(tx, caller.organizationId, id))) === 0) throw notFound('x402 endpoint')
      return { id, deleted: true as const }
    },
  }
}

export type X402Endpoints = ReturnType<typeof createX402Endpoints>
