/**
 * Importing a paid API: `POST /v1/x402-endpoints/import` probes a resource (it must answer 402
 * with an offer this installation can pay), pays it once from one of the organization's wallets,
 * and records the endpoint with metadata taken from the 402 and the paid answer (written by the AI
 * model when one is configured); `maxAllowedPrice` is five times the price.
 */
import { badRequest, conflict } from '../errors.ts'
import { discovered, type EndpointRow, endpoints } from '../store/x402-endpoints.ts'
import { type WalletRow, wallets } from '../store/wallets.ts'
import type { Principal } from './auth.ts'
import {
  type Buyer,
  httpUrl,
  type Offer,
  parseBody,
  toEndpoint,
  type X402EndpointsDeps,
} from './x402-endpoint-context.ts'

interface ImportInput {
  resourceUrl: string
  method?: string
  body?: Record<string, unknown>
  name?: string
  description?: string
  walletAddress?: string
}

/** A JSON Schema inferred from an example value. */
function schemaOf(value: unknown): Record<string, unknown> {
  if (value === null) return { type: 'null' }
  if (Array.isArray(value)) return { type: 'array', ...(value.length ? { items: schemaOf(value[0]) } : {}) }
  if (typeof value === 'object')
    return {
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, schemaOf(v)]),
      ),
    }
  return { type: typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value }
}

/** The importing operation of the x402 endpoints. */
export function importOperations(deps: X402EndpointsDeps, { send, offerOf, paymentFor, settlementOf }: Buyer) {
  const { store, clock } = deps

  /** What the model says about an imported resource; null without a model, or when it fails (then they are derived). */
  async function describedByAi(
    organizationId: string,
    facts: Record<string, unknown>,
  ): Promise<{ inputSummary: string; outputSummary: string; category: string; tags: string[] } | null> {
    if (!deps.ai) return null
    try {
      const { json } = await deps.ai.prompt(
        organizationId,
        {
          system: 'You catalogue paid HTTP APIs for workflow authors. Be short and concrete.',
          prompt: `Describe this paid API for a catalogue: what it takes, what it answers, one category word, and up to 5 lowercase tags.\n${JSON.stringify(facts).slice(0, 6000)}`,
          schema: {
            type: 'object',
            required: ['inputSummary', 'outputSummary', 'category', 'tags'],
            properties: {
              inputSummary: { type: 'string' },
              outputSummary: { type: 'string' },
              category: { type: 'string' },
              tags: { type: 'array', items: { type: 'string' } },
            },
          },
          maxTokens: 400,
        },
        AbortSignal.timeout(20_000),
      )
      const j = json as Record<string, unknown> | undefined
      if (!j || typeof j.inputSummary !== 'string' || typeof j.outputSummary !== 'string') return null
      const tags = Array.isArray(j.tags)
        ? j.tags
            .filter((t): t is string => typeof t === 'string')
            .map((t) => t.toLowerCase().trim().slice(0, 40))
            .filter(Boolean)
            .slice(0, 5)
        : []
      const category =
        typeof j.category === 'string' && j.category.trim() ? j.category.trim().toLowerCase().slice(0, 40) : 'api'
      return {
        inputSummary: j.inputSummary.slice(0, 500),
        outputSummary: j.outputSummary.slice(0, 500),
        category,
        tags,
      }
    } catch {
      return null
    }
  }

  async function walletFor(caller: Principal, address?: string): Promise<WalletRow> {
    const wallet = address
      ? await wallets.byAddress(store, caller.organizationId, address)
      : (await wallets.list(store, caller.organizationId, 100, 0)).find((w) => w.is_default === 1)
    if (!wallet)
      throw badRequest(
        address
          ? 'no wallet of this organization has that address'
          : 'the organization has no default wallet: create one first',
        [{ path: '/walletAddress', message: 'unknown wallet' }],
      )
    return wallet
  }

  /** Probes the resource (it must ask for a payment this installation can make), then pays it once. */
  async function buyOnce(input: ImportInput, method: string, wallet: WalletRow) {
    const probe = await send(method, input.resourceUrl, input.body, {}).catch((error) => {
      throw badRequest(`the resource could not be reached: ${error instanceof Error ? error.message : String(error)}`, [
        { path: '/resourceUrl', message: 'unreachable' },
      ])
    })
    if (probe.status !== 402)
      throw badRequest(`the resource answered ${probe.status}, not 402: it is not a paid x402 resource`, [
        { path: '/resourceUrl', message: `answered ${probe.status}` },
      ])
    const offer = offerOf(probe)
    if (typeof offer === 'string')
      throw badRequest(`the resource cannot be paid: ${offer}`, [{ path: '/resourceUrl', message: offer }])
    if (BigInt(offer.amount) > deps.maxImportPrice) {
      throw badRequest(
        `the resource asks ${offer.amount}, more than AUTOMATON_X402_MAX_IMPORT_PRICE (${deps.maxImportPrice})`,
        [{ path: '/resourceUrl', message: 'too expensive to import' }],
      )
    }
    // Pay once, and keep what it answers as the example.
    const [header, value] = await paymentFor(offer, wallet)
    const started = clock.now()
    const paid = await send(method, input.resourceUrl, input.body, { [header]: value })
    if (paid.status < 200 || paid.status >= 300) {
      const reason = (parseBody(paid.body) as { error?: string })?.error ?? `status ${paid.status}`
      throw badRequest(`the resource refused the payment: ${reason}`, [
        { path: '/resourceUrl', message: String(reason) },
      ])
    }
    return { offer, paid, ms: clock.now() - started }
  }

  /** The endpoint's row: what the 402 and the paid answer tell, described by the model when there is one. */
  async function endpointRow(
    caller: Principal,
    input: ImportInput,
    target: { url: URL; method: string },
    bought: { offer: Offer; output: unknown; ms: number; at: number },
  ): Promise<EndpointRow> {
    const { url, method } = target
    const { offer, output, at } = bought
    const baseUrl = `${url.origin}${url.pathname}`
    const schema = (offer.outputSchema as { output?: unknown } | null)?.output ?? schemaOf(output)
    const inputSchema = (
      offer.outputSchema as {
        input?: {
          schema?: { properties?: Record<string, { type?: string; description?: string }>; required?: string[] }
        }
      } | null
    )?.input?.schema
    const bodyParams = Object.fromEntries(
      Object.entries(inputSchema?.properties ?? {}).map(([k, v]) => [
        k,
        {
          type: v.type ?? 'string',
          description: v.description ?? '',
          required: (inputSchema?.required ?? []).includes(k),
        },
      ]),
    )
    const description = input.description ?? offer.description
    const token = deps.scheme.assetOf(offer.extra)
    const described = await describedByAi(caller.organizationId, {
      url: baseUrl,
      method,
      description,
      inputSchema: inputSchema ?? null,
      exampleBody: input.body ?? null,
      exampleOutput: output,
    })
    return {
      id: deps.ids.next('x402'),
      organization_id: caller.organizationId,
      name: (input.name ?? (description || `${method} ${url.host}${url.pathname}`)).slice(0, 100),
      description: description.slice(0, 500),
      category: described?.category ?? 'api',
      base_url: baseUrl,
      method,
      mime_type: offer.mimeType,
      source: (await discovered.has(store, caller.organizationId, baseUrl)) ? 'provider_bazaar' : 'user_import',
      details: JSON.stringify({
        tags: described?.tags ?? [],
        useCases: [],
        queryParams: {},
        bodyParams,
        headerParams: {},
        defaultQueryParams: Object.fromEntries(url.searchParams),
        defaultBody: input.body ?? {},
        defaultHeaders: {},
        exampleQueryParams: Object.fromEntries(url.searchParams),
        exampleBody: input.body ?? null,
        exampleOutput: output,
        outputSchema: schema,
      }),
      input_summary:
        described?.inputSummary ??
        (Object.keys(bodyParams).length
          ? `takes ${Object.keys(bodyParams).join(', ')}`
          : input.body
            ? `takes a JSON body like ${JSON.stringify(input.body).slice(0, 200)}`
            : 'takes no input'),
      output_summary:
        described?.outputSummary ??
        (typeof output === 'object' && output !== null
          ? `answers ${Object.keys(output as Record<string, unknown>)
              .slice(0, 10)
              .join(', ')}`
          : 'answers text'),
      price: offer.amount,
      max_allowed_price: String(BigInt(offer.amount) * 5n),
      network: offer.chain.network,
      pay_to: offer.payTo,
      token_address: offer.asset,
      token_symbol: token.symbol,
      token_decimals: token.decimals,
      spent_by_token: JSON.stringify({ [offer.asset]: offer.amount }),
      total_calls: 1,
      success_count: 1,
      failure_count: 0,
      avg_response_ms: bought.ms,
      last_called_at: at,
      last_error: null,
      last_error_at: null,
      created_at: at,
      updated_at: at,
    }
  }

  return {
    async import(caller: Principal, input: ImportInput) {
      const url = httpUrl(input.resourceUrl, 'resourceUrl')
      const method = input.method ?? (input.body ? 'POST' : 'GET')
      const baseUrl = `${url.origin}${url.pathname}`
      if (await endpoints.byTarget(store, caller.organizationId, baseUrl, method))
        throw conflict(`${method} ${baseUrl} is imported already; nothing was paid`)
      const wallet = await walletFor(caller, input.walletAddress)
      const { offer, paid, ms } = await buyOnce(input, method, wallet)
      const transaction = settlementOf(paid)
      const row = await endpointRow(
        caller,
        input,
        { url, method },
        { offer, output: parseBody(paid.body), ms, at: clock.now() },
      )
      try {
        await store.write((tx) => endpoints.insert(tx, row))
      } catch (error) {
        if (await endpoints.byTarget(store, caller.organizationId, baseUrl, method))
          throw conflict(`${method} ${baseUrl} was imported meanwhile`)
        throw error
      }
      return {
        endpoint: toEndpoint(row),
        paymentDetails: {
          amountPaid: offer.amount,
          asset: offer.asset,
          network: offer.chain.network,
          payer: wallet.address,
          transaction,
        },
      }
    },
  }
}
