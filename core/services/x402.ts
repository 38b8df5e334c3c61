/**
 * Paid workflows over x402: a live workflow with an `x402Config` answers 402 with what it costs;
 * a payment (the `exact` scheme of the payment-scheme port: on EVM an EIP-3009 authorization
 * signed by the payer) is verified locally in the reference facilitator's order, its nonce claimed
 * once, settled on chain by the operator's relayer, and only then is the run admitted. A
 * replayed payment answers the run it already paid for.
 *
 * Payment states: verified → settling → settled | failed. A handler that fails after settlement
 * has been paid (the run exists and reports its failure); nothing is charged before settlement.
 * Settling and reconciling are x402-settlement.ts; the requirement, the 402 answer and the
 * discovery listing are x402-requirements.ts.
 */
import type { WebhookResult } from '../domain/run.ts'
import type { WorkflowContent } from '../domain/workflow.ts'
import { facilitatorRequest, paymentOf, type Requirement, responseHeader } from '../domain/x402.ts'
import { AppError, notFound, unavailable } from '../errors.ts'
import type { Facilitator, FacilitatorRequest } from '../ports/facilitator.ts'
import type { Ids } from '../ports/ids.ts'
import { type PaymentRow, payments } from '../store/x402.ts'
import { versions, type WorkflowRow, workflows } from '../store/workflows.ts'
import { triggerEvent } from './runs.ts'
import { answer402, checkInput, discoverable, PaymentRequired, requirementOf } from './x402-requirements.ts'
import { createSettlement, type SettlementDeps } from './x402-settlement.ts'

export interface PaidResult {
  result: WebhookResult
  payment: { transaction: string; network: string; payer: string; amount: string }
  headers: Record<string, string>
}

export interface X402ServiceDeps extends SettlementDeps {
  ids: Ids
}

export function createX402Service(deps: X402ServiceDeps) {
  const { store, clock } = deps
  const settlement = createSettlement(deps)

  async function liveContent(w: WorkflowRow): Promise<WorkflowContent | null> {
    if (w.live_version === null || w.archived_at !== null) return null
    const text = await versions.content(store, w.id, w.live_version)
    return text ? (JSON.parse(text) as WorkflowContent) : null
  }

  /** The settlement did not confirm in time: never a fresh 402, which would make the payer pay again. */
  const notConfirmed = () =>
    new AppError(
      409,
      'the payment was submitted and is not confirmed on chain yet: send the same payment again to get its result (it is settled at most once)',
      [],
      { 'retry-after': '5' },
    )

  /**
   * Checked here first, in the reference order; an external facilitator has the last word. Without
   * one, the operator's relayer must be configured to settle.
   */
  async function facilitatorVerdict(requirement: Requirement, forFacilitator: FacilitatorRequest): Promise<void> {
    if (deps.facilitator) {
      let verdict: Awaited<ReturnType<Facilitator['verify']>>
      try {
        verdict = await deps.facilitator.verify(forFacilitator)
      } catch (error) {
        throw unavailable(
          `the x402 facilitator could not be reached: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        )
      }
      if (!verdict.isValid) throw new PaymentRequired(requirement, verdict.invalidReason ?? 'invalid_payload')
    } else if (!deps.relayerKey) {
      throw unavailable(
        "paid workflows need the operator's relayer (AUTOMATON_X402_RELAYER_KEY) or a facilitator (AUTOMATON_X402_FACILITATOR_URL)",
      )
    }
  }

  /** Takes the payment a request carries for a workflow, settles it, and starts the run. */
  async function pay(
    w: WorkflowRow,
    content: WorkflowContent,
    request: { url: string; headers: Headers; body: unknown },
  ): Promise<PaidResult> {
    const requirement = requirementOf(deps.scheme, content, request.url)
    checkInput(content, request.body)
    const carried = paymentOf(request.headers)
    if (carried === null) throw new PaymentRequired(requirement, 'X-PAYMENT or PAYMENT-SIGNATURE header is required')
    if ('error' in carried) throw new PaymentRequired(requirement, carried.error)
    const chainId = content.x402Config!.chainId!
    // Checked in the reference facilitator's order; the first problem is the 402's error.
    const problem = await deps.scheme.verify(chainId, requirement, carried.payment, clock.now())
    if (problem) throw new PaymentRequired(requirement, problem)
    const a = carried.payment.payload.authorization
    const answerOf = (row: PaymentRow): PaidResult => {
      const payment = {
        transaction: row.transaction_hash!,
        network: requirement.network,
        payer: a.from,
        amount: requirement.amount,
      }
      const [name, value] = responseHeader(carried.version, {
        transaction: payment.transaction,
        network: requirement.network,
        payer: a.from,
      })
      return {
        result: { action: 'triggered', eventId: row.event_id ?? '', runIds: row.run_id ? [row.run_id] : [] },
        payment,
        headers: { [name]: value },
      }
    }
    const forFacilitator = facilitatorRequest(carried.version, carried.payment, requirement)
    await facilitatorVerdict(requirement, forFacilitator)

    // The nonce is claimed once: the same payment again answers the run it paid for.
    const id = deps.ids.next('x402')
    const at = clock.now()
    const claimed = await store.write((tx) =>
      payments.claim(tx, {
        id,
        organization_id: w.organization_id,
        workflow_id: w.id,
        chain_id: chainId,
        asset: requirement.asset.toLowerCase(),
        payer: a.from.toLowerCase(),
        nonce: a.nonce.toLowerCase(),
        amount: a.value,
        pay_to: a.to.toLowerCase(),
        status: 'verified',
        authorization_payload: JSON.stringify({
          authorization: a,
          signature: carried.payment.payload.signature,
          facilitator: forFacilitator,
        }),
        valid_before: Number(a.validBefore),
        trigger_event: JSON.stringify(triggerEvent('webhook', request.body ?? {}, request.headers, at)),
        created_at: at,
        updated_at: at,
      }),
    )
    let row = claimed
      ? await payments.byId(store, id)
      : await payments.byNonce(
          store,
          chainId,
          requirement.asset.toLowerCase(),
          a.from.toLowerCase(),
          a.nonce.toLowerCase(),
        )
    if (!row || row.workflow_id !== w.id || row.status === 'failed')
      throw new PaymentRequired(requirement, 'invalid_exact_evm_payload_authorization_nonce_used')
    // Another request is submitting this very payment now: it answers; this one asks to come back.
    if (
      !claimed &&
      !row.transaction_hash &&
      (row.status === 'verified' || row.status === 'settling') &&
      row.updated_at > clock.now() - settlement.reconcileGraceMs
    )
      throw notConfirmed()
    row = await settlement.advance(row, settlement.settleTimeoutMs)
    if (row.status === 'failed')
      throw new PaymentRequired(
        requirement,
        row.error && /^[a-z0-9_]{3,80}$/.test(row.error) ? row.error : 'settlement_failed',
      )
    if (row.status !== 'settled') throw notConfirmed()
    return answerOf(row)
  }

  return {
    PaymentRequired,
    reconcile: settlement.reconcile,
    startReconciler: settlement.startReconciler,
    answer402,

    /** `POST /v1/x402/workflows/{id}`: a discoverable paid workflow, for payment alone. */
    async payDiscoverable(
      workflowId: string,
      request: { url: string; headers: Headers; body: unknown },
    ): Promise<PaidResult> {
      const w = await workflows.byIdAnyOrg(store, workflowId)
      const content = w ? await liveContent(w) : null
      if (!w || !content?.x402Config?.discoverable || w.live_status !== 'active') throw notFound('paid workflow')
      return pay(w, content, request)
    },

    /** A workflow webhook: null when the workflow is not paid; else its payment is required too. */
    async payWebhook(
      secret: string,
      request: { url: string; headers: Headers; body: unknown },
    ): Promise<PaidResult | null> {
      const w = await workflows.bySecret(store, secret)
      if (!w) return null
      const content = await liveContent(w)
      if (!content?.x402Config || w.live_status !== 'active') return null
      return pay(w, content, request)
    },

    /** `GET /v1/x402/discovery/resources`, in the Bazaar format. */
    discovery: (query: { type?: string; limit: number; offset: number }, baseUrl: string) =>
      discoverable(store, deps.scheme, query, baseUrl),
  }
}

export type X402Service = ReturnType<typeof createX402Service>
