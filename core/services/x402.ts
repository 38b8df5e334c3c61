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
import { facilitatorRequest, type PaymentPayload, paymentOf, type Requirement, responseHeader, v1Body, v2Header, type X402Error } from '../domain/x402.ts'
import { AppError, badRequest, conflict, notFound, unavailable } from '../errors.ts'
import type { Chains } from '../ports/chain.ts'
import type { Clock } from '../ports/clock.ts'
import type { Facilitator, FacilitatorRequest } from '../ports/facilitator.ts'
import type { Dispatcher, TriggerEvent } from '../ports/engine.ts'
import type { Ids } from '../ports/ids.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import { type PaymentRow, type PaymentStatus, payments } from '../store/x402.ts'
import { versions, type WorkflowRow, workflows } from '../store/workflows.ts'
import { triggerEvent } from './runs.ts'

/** What the test USDC and the USDC of public chains sign with. */
const TOKEN_DOMAIN = { name: 'USD Coin', version: '2' }
/** An authorization must stay valid this long beyond now, so that settlement can land. */
const VALID_BEFORE_MARGIN_S = 6
/** Past its validBefore by this much (clocks differ), an unused authorization can never settle. */
const EXPIRY_SLACK_S = 60

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
  /** AUTOMATON_X402_SETTLE_TIMEOUT_MS: how long a paid request waits for its settlement to be mined. */
  settleTimeoutMs?: number
  /** AUTOMATON_X402_FACILITATOR_URL: an external facilitator verifies and settles instead of the relayer. */
  facilitator?: Facilitator | null
}) {
  const { store, clock } = deps
  const settleTimeoutMs = deps.settleTimeoutMs ?? 20_000
  // Payments untouched this long are left to the reconciler (a request in flight owns the others).
  const reconcileGraceMs = settleTimeoutMs + 5_000
  const reconcileEveryMs = Math.min(10_000, Math.max(500, settleTimeoutMs))

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
    const answerOf = (row: PaymentRow): PaidResult => {
      const payment = { transaction: row.transaction_hash!, network: requirement.network, payer: a.from, amount: requirement.amount }
      const [name, value] = responseHeader(carried.version, { transaction: payment.transaction, network: requirement.network, payer: a.from })
      return { result: { action: 'triggered', eventId: row.event_id ?? '', runIds: row.run_id ? [row.run_id] : [] }, payment, headers: { [name]: value } }
    }
    const forFacilitator = facilitatorRequest(carried.version, carried.payment, requirement)
    if (deps.facilitator) {
      // Checked here first, in the reference order; the facilitator has the last word.
      let verdict: Awaited<ReturnType<Facilitator['verify']>>
      try {
        verdict = await deps.facilitator.verify(forFacilitator)
      } catch (error) {
        throw unavailable(`the x402 facilitator could not be reached: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`)
      }
      if (!verdict.isValid) throw new PaymentRequired(requirement, verdict.invalidReason ?? 'invalid_payload')
    } else if (!deps.relayerKey) {
      throw unavailable('paid workflows need the operator\'s relayer (AUTOMATON_X402_RELAYER_KEY) or a facilitator (AUTOMATON_X402_FACILITATOR_URL)')
    }

    // The nonce is claimed once: the same payment again answers the run it paid for.
    const id = deps.ids.next('x402')
    const at = clock.now()
    const claimed = await store.write((tx) => payments.claim(tx, {
      id, organization_id: w.organization_id, workflow_id: w.id, chain_id: chainId, asset: requirement.asset.toLowerCase(), payer: a.from.toLowerCase(),
      nonce: a.nonce.toLowerCase(), amount: a.value, pay_to: a.to.toLowerCase(), status: 'verified',
      authorization_payload: JSON.stringify({ authorization: a, signature: carried.payment.payload.signature, facilitator: forFacilitator }), valid_before: Number(a.validBefore),
      trigger_event: JSON.stringify(triggerEvent('webhook', request.body ?? {}, request.headers, at)), created_at: at, updated_at: at,
    }))
    let row = claimed ? await payments.byId(store, id) : await payments.byNonce(store, chainId, requirement.asset.toLowerCase(), a.from.toLowerCase(), a.nonce.toLowerCase())
    if (!row || row.workflow_id !== w.id || row.status === 'failed') throw new PaymentRequired(requirement, 'invalid_exact_evm_payload_authorization_nonce_used')
    // Another request is submitting this very payment now: it answers; this one asks to come back.
    if (!claimed && !row.transaction_hash && (row.status === 'verified' || row.status === 'settling') && row.updated_at > clock.now() - reconcileGraceMs) throw notConfirmed()
    row = await advance(row, settleTimeoutMs)
    if (row.status === 'failed') throw new PaymentRequired(requirement, row.error && /^[a-z0-9_]{3,80}$/.test(row.error) ? row.error : 'settlement_failed')
    if (row.status !== 'settled') throw notConfirmed()
    return answerOf(row)
  }

  /** The settlement did not confirm in time: never a fresh 402, which would make the payer pay again. */
  const notConfirmed = () =>
    new AppError(409, 'the payment was submitted and is not confirmed on chain yet: send the same payment again to get its result (it is settled at most once)', [], { 'retry-after': '5' })

  /**
   * One step of a payment's settlement, from whatever state it was left in (by this request, a
   * timeout, or a process killed mid-way): submits it, looks up what the chain did with it,
   * broadcasts the relayer's transaction again, or gives up once the authorization expired
   * unused. The chain accepts an authorization's nonce once, so nothing here settles twice.
   */
  async function advance(row: PaymentRow, waitMs: number): Promise<PaymentRow> {
    const set = async (patch: Partial<PaymentRow> & { status: PaymentStatus }) => {
      await store.write((tx) => payments.update(tx, row.id, { ...patch, at: clock.now() }))
      row = { ...row, ...patch, updated_at: clock.now() }
      return row
    }
    if (row.status === 'verified' || row.status === 'settling' || row.status === 'unknown') {
      const { authorization: a, signature, facilitator: forFacilitator } = JSON.parse(row.authorization_payload!) as {
        authorization: PaymentPayload['payload']['authorization']; signature: string; facilitator: FacilitatorRequest
      }
      const expired = Number(row.valid_before) + EXPIRY_SLACK_S < Math.floor(clock.now() / 1000)
      const use = () => deps.chains.authorizationUse(row.chain_id, row.asset, a.from, a.nonce)
      const used = async () => (await use()) !== null
      /** Settled by whoever sent it: the transaction is the one that used the nonce, when found. */
      const settledByChain = async () => {
        const found = await use()
        if (!found) return null
        return settledThen(await set({ status: 'settled', transaction_hash: found.transaction ?? row.transaction_hash }))
      }
      const submit = async () => {
        if (deps.facilitator) {
          await set({ status: 'settling' })
          let answer: Awaited<ReturnType<Facilitator['settle']>>
          try {
            answer = await deps.facilitator.settle(forFacilitator)
          } catch (error) {
            // Perhaps settled, perhaps not: the chain tells later.
            return set({ status: 'unknown', error: (error instanceof Error ? error.message.split('\n')[0] : String(error)).slice(0, 500) })
          }
          if (!answer.success) return set({ status: 'failed', error: answer.errorReason.slice(0, 500) })
          return set({ status: 'settling', transaction_hash: answer.transaction })
        }
        if (!deps.relayerKey) return set({ status: 'failed', error: 'no relayer configured (AUTOMATON_X402_RELAYER_KEY)' })
        try {
          const hash = await deps.chains.submitAuthorization(row.chain_id, deps.relayerKey, row.asset, a, signature, async (hash, raw) => {
            await store.write((tx) => payments.submitted(tx, row.id, hash, raw, clock.now()))
            row = { ...row, status: 'settling', transaction_hash: hash, raw_transaction: raw }
          })
          row = { ...row, transaction_hash: hash }
          return row
        } catch (error) {
          const message = error instanceof Error ? error.message.split('\n')[0] : String(error)
          // Signed but perhaps sent: the chain decides later. Never signed: nothing was paid.
          if (row.status === 'settling') return set({ status: 'unknown', error: message.slice(0, 500) })
          deps.logger.warn('an x402 settlement failed', { paymentId: row.id, workflowId: row.workflow_id, error: message })
          return set({ status: 'failed', error: message.slice(0, 500) })
        }
      }
      if (!row.transaction_hash) {
        const settled = await settledByChain()
        if (settled) return settled
        if (expired) return set({ status: 'failed', error: 'the authorization expired before it was settled: nothing was paid' })
        const after = await submit()
        if (after.status === 'failed' || after.status === 'unknown') return after
      } else if (row.raw_transaction && !expired) {
        const known = await deps.chains.transactionOutcome(row.chain_id, row.transaction_hash, 0)
        if (known === 'pending') {
          try {
            await deps.chains.broadcast(row.chain_id, row.raw_transaction)
          } catch (error) {
            // The relayer's nonce went to another transaction: this one can never be mined. Send anew.
            if (!/nonce too low|nonce has already been used|replacement transaction underpriced/i.test((error as Error).message)) throw error
            if (!(await used())) await submit()
          }
        }
      }
      const outcome = await deps.chains.transactionOutcome(row.chain_id, row.transaction_hash!, waitMs)
      if (outcome === 'success') return settledThen(await set({ status: 'settled' }))
      const settled = await settledByChain()
      if (settled) return settled
      if (outcome === 'reverted') return set({ status: 'failed', error: `the transfer reverted (transaction ${row.transaction_hash}): nothing was paid` })
      if (expired) return set({ status: 'failed', error: 'the authorization expired before it was settled: nothing was paid' })
      return set({ status: 'unknown' })
    }
    return settledThen(row)
  }

  /** Paid: now the run, once. Its idempotency key is the payment's, so no retry starts a second. */
  async function settledThen(row: PaymentRow): Promise<PaymentRow> {
    if (row.status !== 'settled' || row.event_id) return row
    const dispatched = await deps.dispatcher.dispatch({
      organizationId: row.organization_id, workflowId: row.workflow_id, version: 'live', automatic: true, triggeredBy: 'webhook',
      event: JSON.parse(row.trigger_event!) as TriggerEvent, idempotencyKey: `x402:${row.id}`, paid: true,
    })
    const runId = dispatched.action === 'triggered' ? dispatched.runId : (dispatched.runId ?? null)
    await store.write((tx) => payments.update(tx, row.id, { status: 'settled', run_id: runId, event_id: dispatched.eventId, at: clock.now() }))
    return { ...row, run_id: runId, event_id: dispatched.eventId }
  }

  /** Settlements left unfinished (a timeout, a killed process), finished from the chain's state. */
  async function reconcile(): Promise<number> {
    const open = await payments.open(store, clock.now() - reconcileGraceMs, 50)
    for (const row of open) {
      try {
        const after = await advance(row, 0)
        if (after.status !== row.status) deps.logger.info('an x402 payment was reconciled', { paymentId: row.id, from: row.status, to: after.status, runId: after.run_id })
      } catch (error) {
        deps.logger.warn('an x402 payment could not be reconciled yet', { paymentId: row.id, error: error instanceof Error ? error.message.split('\n')[0] : String(error) })
      }
    }
    return open.length
  }

  return {
    PaymentRequired,
    reconcile,
    /** Reconciles on an interval until stopped. */
    startReconciler() {
      let stopped = false
      let running: Promise<unknown> = Promise.resolve()
      const tick = () => {
        if (stopped) return
        running = reconcile().catch(() => 0).finally(() => {
          if (!stopped) timer = setTimeout(tick, reconcileEveryMs)
        })
      }
      let timer = setTimeout(tick, 0)
      return async () => {
        stopped = true
        clearTimeout(timer)
        await running
      }
    },
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
