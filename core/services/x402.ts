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
import type { WorkflowContent } from '../domain/workflow.ts'
import { notFound } from '../errors.ts'
import { versions, type WorkflowRow, workflows } from '../store/workflows.ts'
import { type PaidRequest, type PaidResult, pay, type X402ServiceDeps } from './x402-payment.ts'
import { answer402, discoverable, PaymentRequired } from './x402-requirements.ts'
import { createSettlement } from './x402-settlement.ts'

export type { PaidRequest, PaidResult, X402ServiceDeps } from './x402-payment.ts'

/** Paid workflows: taking payments for them, the reconciler of their settlements, and their discovery listing. */
export interface X402Service {
  /** The 402 a route answers when a payment is missing or refused. */
  readonly PaymentRequired: typeof PaymentRequired
  /** Settlements left unfinished, finished from the chain's state; answers how many were open. */
  reconcile(): Promise<number>
  /** Reconciles on an interval; answers the function that stops it. */
  startReconciler(): () => Promise<void>
  /** The 402 response for a `PaymentRequired` error, null for any other error. */
  answer402(error: unknown): Response | null
  /** `POST /v1/x402/workflows/{id}`: a discoverable paid workflow, for payment alone. */
  payDiscoverable(workflowId: string, request: PaidRequest): Promise<PaidResult>
  /** A workflow webhook: null when the workflow is not paid; else its payment is required too. */
  payWebhook(secret: string, request: PaidRequest): Promise<PaidResult | null>
  /** `GET /v1/x402/discovery/resources`, in the Bazaar format. */
  discovery(query: { type?: string; limit: number; offset: number }, baseUrl: string): ReturnType<typeof discoverable>
}

export function createX402Service(deps: X402ServiceDeps): X402Service {
  const { store } = deps
  const settlement = createSettlement(deps)

  async function liveContent(w: WorkflowRow): Promise<WorkflowContent | null> {
    if (w.live_version === null || w.archived_at !== null) return null
    const text = await versions.content(store, w.id, w.live_version)
    return text ? (JSON.parse(text) as WorkflowContent) : null
  }

  return {
    PaymentRequired,
    reconcile: settlement.reconcile,
    startReconciler: settlement.startReconciler,
    answer402,

    async payDiscoverable(workflowId: string, request: PaidRequest): Promise<PaidResult> {
      const w = await workflows.byIdAnyOrg(store, workflowId)
      const content = w ? await liveContent(w) : null
      if (!w || !content?.x402Config?.discoverable || w.live_status !== 'active') throw notFound('paid workflow')
      return pay(deps, settlement, w, content, request)
    },

    async payWebhook(secret: string, request: PaidRequest): Promise<PaidResult | null> {
      const w = await workflows.bySecret(store, secret)
      if (!w) return null
      const content = await liveContent(w)
      if (!content?.x402Config || w.live_status !== 'active') return null
      return pay(deps, settlement, w, content, request)
    },

    discovery: (query, baseUrl) => discoverable(store, deps.scheme, query, baseUrl),
  }
}
