/**
 * Paid workflows over x402: a live workflow with an `x402Config` answers 402 with what it costs;
 * a payment (an EIP-3009 authorization signed by the payer) is verified locally in the reference
 * facilitator's order, its nonce claimed once, settled on chain by the operator's relayer, and
 * only then is the run admitted. A replayed payment answers the run it already paid for.
 *
 * Payment states: verified → settling → settled | failed. A handler that fails after settlement
 * has been paid (the run exists and reports its failure); nothing is charged before settlement.
 */
import type { WebhookResult } from '../domain/run.ts'
import type { WorkflowContent } from '../domain/workflow.ts'
import { type PaymentPayload, paymentOf, type Requirement, responseHeader, v1Body, v2Header, type X402Error } from '../domain/x402.ts'
import { AppError, badRequest, conflict, notFound, unavailable } from '../errors.ts'
import type { Chains } from '../ports/chain.ts'
import type { Clock } from '../ports/clock.ts'
import type { Dispatcher } from '../ports/engine.ts'
import type { Ids } from '../ports/ids.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import { payments } from '../store/x402.ts'
import { versions, type WorkflowRow, workflows } from '../store/workflows.ts'
import { triggerEvent } from './runs.ts'

/** What the test USDC and the USDC of public chains sign with. */
const TOKEN_DOMAIN = { name: 'USD Coin', version: '2' }
/** An authorization must stay valid this long beyond now, so that settlement can land. */
const VALID_BEFORE_MARGIN_S = 6

/** A 402: the v1 body and the v2 header, with the reason. */
class PaymentRequired extends AppError {
  constructor(readonly requirement: Requirement, readonly code: X402Error | string) {
    super(402, code)
  }
}

export interface PaidResult {
  result: WebhookResult
  payment: { transaction: string; network: string; payer: string; amount: string }
  headers: Record<string, string>
}

export function createX402Service(deps: {
  store: Store
  clock: Clock
  ids: Ids
  logger: Logger
  chains: Chains
  dispatcher: Dispatcher
  /** AUTOMATON_X402_RELAYER_KEY: the key that submits authorizations and pays their gas. */
  relayerKey: string | null
}) {
  const { store, clock } = deps

  function requirementOf(content: WorkflowContent, resource: string): Requirement {
    const config = content.x402Config!
    const chain = deps.chains.get(config.chainId ?? 0)
    if (!chain) throw unavailable(`the workflow is paid on chain ${config.chainId}, which this installation does not have configured (AUTOMATON_CHAINS)`)
    return {
      scheme: 'exact', network: chain.network, caip2: `eip155:${chain.chainId}`, amount: config.price ?? '0', asset: config.token ?? '', payTo: config.recipient ?? '',
      resource, description: config.discoveryMetadata?.description ?? content.description ?? content.name, mimeType: 'application/json',
      maxTimeoutSeconds: 60, outputSchema: config.discoveryOutput?.schema ? { input: config.discoveryInput ?? {}, output: config.discoveryOutput.schema } : undefined,
      extra: TOKEN_DOMAIN,
    }
  }

  /** Checks in the reference facilitator's order; the first problem is the 402's error. */
  async function verify(r: Requirement, chainId: number, p: PaymentPayload): Promise<X402Error | null> {
    if (p.scheme !== 'exact') return 'invalid_scheme'
    if (p.network !== r.network && p.network !== r.caip2) return 'invalid_network'
    const a = p.payload.authorization
    if (!/^0x[0-9a-fA-F]{64}$/.test(a.nonce) || ![a.value, a.validAfter, a.validBefore].every((n) => /^\d{1,78}$/.test(n))) return 'invalid_payload'
    const ok = await deps.chains.verifyAuthorization(chainId, { address: r.asset, ...TOKEN_DOMAIN }, a, p.payload.signature)
    if (!ok) return 'invalid_exact_evm_payload_signature'
    if (a.to.toLowerCase() !== r.payTo.toLowerCase()) return 'invalid_exact_evm_payload_recipient_mismatch'
    const now = Math.floor(clock.now() / 1000)
    if (BigInt(a.validBefore) < BigInt(now + VALID_BEFORE_MARGIN_S)) return 'invalid_exact_evm_payload_authorization_valid_before'
    if (BigInt(a.validAfter) > BigInt(now)) return 'invalid_exact_evm_payload_authorization_valid_after'
    if (BigInt(a.value) !== BigInt(r.amount)) return 'invalid_exact_evm_payload_authorization_value'
    return null
  }

  async function liveContent(w: WorkflowRow): Promise<WorkflowContent | null> {
    if (w.live_version === null || w.archived_at !== null) return null
    const text = await versions.content(store, w.id, w.live_version)
    return text ? (JSON.parse(text) as WorkflowContent) : null
  }

  function checkInput(content: WorkflowContent, body: unknown) {
    const schema = content.x402Config?.discoveryInput?.schema as { required?: string[]; type?: string } | undefined
    if (!schema) return
    if (schema.type === 'object' && (body === null || typeof body !== 'object' || Array.isArray(body))) throw badRequest('the body must be a JSON object', [{ path: '', message: 'expected an object' }])
    const missing = (schema.required ?? []).filter((key) => body === null || typeof body !== 'object' || !(key in (body as Record<string, unknown>)))
    if (missing.length > 0) throw badRequest('the body lacks what the paid workflow needs; nothing was paid', missing.map((key) => ({ path: `/${key}`, message: 'required' })))
  }

  /** Takes the payment a request carries for a workflow, settles it, and starts the run. */
  async function pay(w: WorkflowRow, content: WorkflowContent, request: { url: string; headers: Headers; body: unknown }): Promise<PaidResult> {
    const requirement = requirementOf(content, request.url)
    checkInput(content, request.body)
    const carried = paymentOf(request.headers)
    if (carried === null) throw new PaymentRequired(requirement, 'X-PAYMENT or PAYMENT-SIGNATURE header is required')
    if ('error' in carried) throw new PaymentRequired(requirement, carried.error)
    const chainId = content.x402Config!.chainId!
    const problem = await verify(requirement, chainId, carried.payment)
    if (problem) throw new PaymentRequired(requirement, problem)
    const a = carried.payment.payload.authorization
    const payer = a.from.toLowerCase()
    const asset = requirement.asset.toLowerCase()
    const settledAnswer = (row: { transaction_hash: string | null; run_id: string | null; event_id: string | null }): PaidResult => {
      const payment = { transaction: row.transaction_hash!, network: requirement.network, payer: a.from, amount: requirement.amount }
      const [name, value] = responseHeader(carried.version, { transaction: payment.transaction, network: requirement.network, payer: a.from })
      return { result: { action: 'triggered', eventId: row.event_id ?? '', runIds: row.run_id ? [row.run_id] : [] }, payment, headers: { [name]: value } }
    }

    // The nonce is claimed once: the same payment again answers the run it paid for.
    const id = deps.ids.next('x402')
    const claimed = await store.write((tx) => payments.claim(tx, {
      id, organization_id: w.organization_id, workflow_id: w.id, chain_id: chainId, asset, payer, nonce: a.nonce.toLowerCase(), amount: a.value,
      pay_to: a.to.toLowerCase(), status: 'verified', transaction_hash: null, run_id: null, event_id: null, error: null, created_at: clock.now(), updated_at: clock.now(),
    }))
    if (!claimed) {
      const earlier = await payments.byNonce(store, chainId, asset, payer, a.nonce.toLowerCase())
      if (earlier?.status === 'settled' && earlier.workflow_id === w.id) return settledAnswer(earlier)
      if (earlier?.status === 'settling' || earlier?.status === 'verified') throw conflict('this payment is being settled; ask again in a moment with the same header')
      throw new PaymentRequired(requirement, 'invalid_exact_evm_payload_authorization_nonce_used')
    }
    if (!deps.relayerKey) {
      await store.write((tx) => payments.update(tx, id, { status: 'failed', error: 'no relayer configured', at: clock.now() }))
      throw unavailable('paid workflows need the operator\'s relayer: AUTOMATON_X402_RELAYER_KEY is not set')
    }
    await store.write((tx) => payments.update(tx, id, { status: 'settling', at: clock.now() }))
    let transaction: string
    try {
      transaction = await deps.chains.settleAuthorization(chainId, deps.relayerKey, requirement.asset, a, carried.payment.payload.signature)
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error)
      await store.write((tx) => payments.update(tx, id, { status: 'failed', error: message.slice(0, 500), at: clock.now() }))
      deps.logger.warn('an x402 settlement failed', { paymentId: id, workflowId: w.id, error: message })
      throw new PaymentRequired(requirement, 'settlement_failed')
    }
    await store.write((tx) => payments.update(tx, id, { status: 'settled', transaction_hash: transaction, at: clock.now() }))
    // Paid: now the run. Its idempotency key is the payment's, so a retry never starts a second.
    const dispatched = await deps.dispatcher.dispatch({
      organizationId: w.organization_id, workflowId: w.id, version: 'live', automatic: true, triggeredBy: 'webhook',
      event: triggerEvent('webhook', request.body ?? {}, request.headers, clock.now()), idempotencyKey: `x402:${id}`,
    })
    const runId = dispatched.action === 'triggered' ? dispatched.runId : (dispatched.runId ?? null)
    await store.write((tx) => payments.update(tx, id, { status: 'settled', run_id: runId, event_id: dispatched.eventId, at: clock.now() }))
    const answer = settledAnswer({ transaction_hash: transaction, run_id: runId, event_id: dispatched.eventId })
    if (dispatched.action !== 'triggered') answer.result = { action: 'skipped', eventId: dispatched.eventId, reason: dispatched.reason, runIds: runId ? [runId] : [] }
    return answer
  }

  return {
    PaymentRequired,
    /** The 402 answer for a PaymentRequired: the v1 body, the v2 header. */
    answer402(error: unknown): Response | null {
      if (!(error instanceof PaymentRequired)) return null
      return new Response(JSON.stringify(v1Body(error.requirement, error.code)), {
        status: 402,
        headers: {
          'content-type': 'application/json', 'payment-required': v2Header(error.requirement, error.code),
          'access-control-expose-headers': 'PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE',
        },
      })
    },

    /** `POST /v1/x402/workflows/{id}`: a discoverable paid workflow, for payment alone. */
    async payDiscoverable(workflowId: string, request: { url: string; headers: Headers; body: unknown }): Promise<PaidResult> {
      const w = await workflows.byIdAnyOrg(store, workflowId)
      const content = w ? await liveContent(w) : null
      if (!w || !content?.x402Config?.discoverable || w.live_status !== 'active') throw notFound('paid workflow')
      return pay(w, content, request)
    },

    /** A workflow webhook: null when the workflow is not paid; else its payment is required too. */
    async payWebhook(secret: string, request: { url: string; headers: Headers; body: unknown }): Promise<PaidResult | null> {
      const w = await workflows.bySecret(store, secret)
      if (!w) return null
      const content = await liveContent(w)
      if (!content?.x402Config || w.live_status !== 'active') return null
      return pay(w, content, request)
    },

    /** `GET /v1/x402/discovery/resources`, in the Bazaar format. */
    async discovery(query: { type?: string; limit: number; offset: number }, baseUrl: string) {
      if (query.type && query.type !== 'http') return { x402Version: 1, items: [], pagination: { limit: query.limit, offset: query.offset, total: 0 } }
      const rows = await payments.discoverable(store)
      const items = rows.flatMap((row) => {
        const content = JSON.parse(row.content) as WorkflowContent
        if (!content.x402Config?.discoverable) return []
        let requirement: Requirement
        try {
          requirement = requirementOf(content, `${baseUrl}/v1/x402/workflows/${row.id}`)
        } catch {
          return []
        }
        const m = content.x402Config.discoveryMetadata ?? {}
        return [{
          resource: requirement.resource, type: 'http', x402Version: 1, accepts: v1Body(requirement, '').accepts, lastUpdated: new Date(Number(row.updated_at)).toISOString(),
          metadata: { name: m.name ?? content.name, description: m.description ?? content.description, category: m.category ?? '', provider: m.provider ?? '', documentation: m.documentation ?? '', logo: m.logo ?? '', tags: m.tags ?? [], input: content.x402Config.discoveryInput ?? null, output: content.x402Config.discoveryOutput ?? null },
        }]
      })
      return { x402Version: 1, items: items.slice(query.offset, query.offset + query.limit), pagination: { limit: query.limit, offset: query.offset, total: items.length } }
    },
  }
}

export type X402Service = ReturnType<typeof createX402Service>
