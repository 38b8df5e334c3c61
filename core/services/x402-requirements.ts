/**
 * What a paid workflow asks of its callers: the x402 requirement of its `x402Config` (on a
 * configured network of the payment scheme), the body it needs before anything is paid, the 402
 * answer (the v1 body and the v2 header, with the reason), and the Bazaar listing of the
 * discoverable ones (`GET /v1/x402/discovery/resources`).
 */
import type { WorkflowContent } from '../domain/workflow.ts'
import { type Requirement, v1Body, v2Header, type X402Error } from '../domain/x402.ts'
import { AppError, badRequest, unavailable } from '../errors.ts'
import type { PaymentScheme } from '../ports/payment-scheme.ts'
import type { Store } from '../ports/store.ts'
import { payments } from '../store/x402.ts'

/** A 402: the v1 body and the v2 header, with the reason. */
export class PaymentRequired extends AppError {
  constructor(
    readonly requirement: Requirement,
    readonly code: X402Error | string,
  ) {
    super(402, code)
  }
}

/** The requirement of a paid workflow's live content, for `resource`; 503 when its network is not configured. */
export function requirementOf(scheme: PaymentScheme, content: WorkflowContent, resource: string): Requirement {
  const config = content.x402Config!
  const chain = scheme.network(config.chainId ?? 0)
  if (!chain)
    throw unavailable(
      `the workflow is paid on chain ${config.chainId}, which this installation does not have configured (AUTOMATON_CHAINS)`,
    )
  return {
    scheme: 'exact',
    network: chain.network,
    caip2: scheme.caip2(chain),
    amount: config.price ?? '0',
    asset: config.token ?? '',
    payTo: config.recipient ?? '',
    resource,
    description: config.discoveryMetadata?.description ?? content.description ?? content.name,
    mimeType: 'application/json',
    maxTimeoutSeconds: 60,
    outputSchema: config.discoveryOutput?.schema
      ? { input: config.discoveryInput ?? {}, output: config.discoveryOutput.schema }
      : undefined,
    extra: scheme.signingDomain(),
  }
}

/** 400 when the body lacks what the paid workflow's input schema requires: checked before anything is paid. */
export function checkInput(content: WorkflowContent, body: unknown) {
  const schema = content.x402Config?.discoveryInput?.schema as { required?: string[]; type?: string } | undefined
  if (!schema) return
  if (schema.type === 'object' && (body === null || typeof body !== 'object' || Array.isArray(body)))
    throw badRequest('the body must be a JSON object', [{ path: '', message: 'expected an object' }])
  const missing = (schema.required ?? []).filter(
    (key) => body === null || typeof body !== 'object' || !(key in (body as Record<string, unknown>)),
  )
  if (missing.length > 0)
    throw badRequest(
      'the body lacks what the paid workflow needs; nothing was paid',
      missing.map((key) => ({ path: `/${key}`, message: 'required' })),
    )
}

/** The 402 answer for a PaymentRequired: the v1 body, the v2 header; null for any other error. */
export function answer402(error: unknown): Response | null {
  if (!(error instanceof PaymentRequired)) return null
  return new Response(JSON.stringify(v1Body(error.requirement, error.code)), {
    status: 402,
    headers: {
      'content-type': 'application/json',
      'payment-required': v2Header(error.requirement, error.code),
      'access-control-expose-headers': 'PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE',
    },
  })
}

/** `GET /v1/x402/discovery/resources`, in the Bazaar format: the discoverable paid workflows whose network is configured. */
export async function discoverable(
  store: Store,
  scheme: PaymentScheme,
  query: { type?: string; limit: number; offset: number },
  baseUrl: string,
) {
  if (query.type && query.type !== 'http')
    return { x402Version: 1, items: [], pagination: { limit: query.limit, offset: query.offset, total: 0 } }
  const rows = await payments.discoverable(store)
  const items = rows.flatMap((row) => {
    const content = JSON.parse(row.content) as WorkflowContent
    if (!content.x402Config?.discoverable) return []
    let requirement: Requirement
    try {
      requirement = requirementOf(scheme, content, `${baseUrl}/v1/x402/workflows/${row.id}`)
    } catch {
      return []
    }
    const m = content.x402Config.discoveryMetadata ?? {}
    return [
      {
        resource: requirement.resource,
        type: 'http',
        x402Version: 1,
        accepts: v1Body(requirement, '').accepts,
        lastUpdated: new Date(Number(row.updated_at)).toISOString(),
        metadata: {
          name: m.name ?? content.name,
          description: m.description ?? content.description,
          category: m.category ?? '',
          provider: m.provider ?? '',
          documentation: m.documentation ?? '',
          logo: m.logo ?? '',
          tags: m.tags ?? [],
          input: content.x402Config.discoveryInput ?? null,
          output: content.x402Config.discoveryOutput ?? null,
        },
      },
    ]
  })
  return {
    x402Version: 1,
    items: items.slice(query.offset, query.offset + query.limit),
    pagination: { limit: query.limit, offset: query.offset, total: items.length },
  }
}
