/**
 * The row an imported paid API is recorded as: what its 402 offer and its paid answer tell,
 * described by the AI model when one is configured (derived from the answer otherwise).
 */
import { discovered, type EndpointRow } from '../store/x402-endpoints.ts'
import type { Principal } from './auth.ts'
import type { Offer, X402EndpointsDeps } from './x402-endpoint-context.ts'

/** What an import is asked for. */
export interface ImportInput {
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

/** What the model says about an imported resource; null without a model, or when it fails (then they are derived). */
async function describedByAi(
  deps: X402EndpointsDeps,
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

type InputSchema = { properties?: Record<string, { type?: string; description?: string }>; required?: string[] }

/** The input schema an offer declares, if any. */
function inputSchemaOf(offer: Offer): InputSchema | undefined {
  return (offer.outputSchema as { input?: { schema?: InputSchema } } | null)?.input?.schema
}

/** The body parameters an input schema names, as the endpoint's details keep them. */
function bodyParamsOf(inputSchema: InputSchema | undefined) {
  return Object.fromEntries(
    Object.entries(inputSchema?.properties ?? {}).map(([k, v]) => [
      k,
      {
        type: v.type ?? 'string',
        description: v.description ?? '',
        required: (inputSchema?.required ?? []).includes(k),
      },
    ]),
  )
}

/** What the endpoint takes, derived when no model describes it. */
function inputSummaryOf(bodyParams: Record<string, unknown>, body: unknown): string {
  if (Object.keys(bodyParams).length) return `takes ${Object.keys(bodyParams).join(', ')}`
  return body ? `takes a JSON body like ${JSON.stringify(body).slice(0, 200)}` : 'takes no input'
}

/** What the endpoint answers, derived from its example answer when no model describes it. */
function outputSummaryOf(output: unknown): string {
  return typeof output === 'object' && output !== null
    ? `answers ${Object.keys(output as Record<string, unknown>)
        .slice(0, 10)
        .join(', ')}`
    : 'answers text'
}

/** The endpoint's row: what the 402 and the paid answer tell, described by the model when there is one. */
export async function endpointRow(
  deps: X402EndpointsDeps,
  caller: Principal,
  input: ImportInput,
  target: { url: URL; method: string },
  bought: { offer: Offer; output: unknown; ms: number; at: number },
): Promise<EndpointRow> {
  const { url, method } = target
  const { offer, output, at } = bought
  const baseUrl = `${url.origin}${url.pathname}`
  const schema = (offer.outputSchema as { output?: unknown } | null)?.output ?? schemaOf(output)
  const inputSchema = inputSchemaOf(offer)
  const bodyParams = bodyParamsOf(inputSchema)
  const description = input.description ?? offer.description
  const token = deps.scheme.assetOf(offer.extra)
  const described = await describedByAi(deps, caller.organizationId, {
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
    source: (await discovered.has(deps.store, caller.organizationId, baseUrl)) ? 'provider_bazaar' : 'user_import',
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
    input_summary: described?.inputSummary ?? inputSummaryOf(bodyParams, input.body),
    output_summary: described?.outputSummary ?? outputSummaryOf(output),
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
