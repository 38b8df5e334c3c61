/**
 * Taking the payment a request carries for a paid workflow: verified here (and by the external
 * facilitator when there is one), its nonce claimed once, settled, and only then is the run
 * started. A replayed payment answers the run it already paid for.
 */
import type { WebhookResult } from '../domain/run.ts'
import type { WorkflowContent } from '../domain/workflow.ts'
import { facilitatorRequest, paymentOf, type Requirement, responseHeader } from '../domain/x402.ts'
import { AppError, unavailable } from '../errors.ts'
import type { Facilitator, FacilitatorRequest } from '../ports/facilitator.ts'
import type { Ids } from '../ports/ids.ts'
import type { WorkflowRow } from '../store/workflows.ts'
import { type PaymentRow, payments } from '../store/x402.ts'
import { triggerEvent } from './runs.ts'
import { checkInput, PaymentRequired, requirementOf } from './x402-requirements.ts'
import type { Settlement, SettlementDeps } from './x402-settlement.ts'

export interface PaidResult {
  result: WebhookResult
  payment: { transaction: string; network: string; payer: string; amount: string }
  headers: Record<string, string>
  /** How long the answer waits for the run's output: the buyer receives what it paid for. */
  waitMs: number
}

/** A paid call waits this long for the run's output unless the workflow says otherwise. */
export const DEFAULT_RESPONSE_WAIT_MS = 30_000

export interface X402ServiceDeps extends SettlementDeps {
  ids: Ids
}

/** The request that carries a payment: its URL (the resource paid for), headers and body. */
export interface PaidRequest {
  url: string
  headers: Headers
  body: unknown
}

/** A payment as a request carries it, with the x402 version it came in. */
type Carried = Extract<ReturnType<typeof paymentOf>, { payment: unknown }>

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
async function facilitatorVerdict(
  deps: X402ServiceDeps,
  requirement: Requirement,
  forFacilitator: FacilitatorRequest,
): Promise<void> {
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

/** What a settled payment answers: its run, what was paid, and the x402 response header. */
function answerOf(carried: Carried, requirement: Requirement, row: PaymentRow): Omit<PaidResult, 'waitMs'> {
  const a = carried.payment.payload.authorization
  const payment = {
    transaction: row.transaction_hash!,
    network: requirement.network,
    payer: a.from,
    amount: requirement.amount,
  }
  // v2 names networks by their CAIP-2 id in every message, as its PAYMENT-REQUIRED did.
  const [name, value] = responseHeader(carried.version, {
    transaction: payment.transaction,
    network: carried.version === 2 ? requirement.caip2 : requirement.network,
    payer: a.from,
  })
  return {
    result: { action: 'triggered', eventId: row.event_id ?? '', runIds: row.run_id ? [row.run_id] : [] },
    payment,
    headers: { [name]: value },
  }
}

/** The nonce is claimed once: the same payment again finds the row it claimed first. */
async function claim(
  deps: X402ServiceDeps,
  w: WorkflowRow,
  chainId: number,
  payment: { carried: Carried; requirement: Requirement; forFacilitator: FacilitatorRequest; request: PaidRequest },
): Promise<{ claimed: boolean; row: PaymentRow | undefined }> {
  const { store, clock } = deps
  const { carried, requirement, forFacilitator, request } = payment
  const a = carried.payment.payload.authorization
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
  const row = claimed
    ? await payments.byId(store, id)
    : await payments.byNonce(
        store,
        chainId,
        requirement.asset.toLowerCase(),
        a.from.toLowerCase(),
        a.nonce.toLowerCase(),
      )
  return { claimed, row }
}

/** Takes the payment a request carries for a workflow, settles it, and starts the run. */
export async function pay(
  deps: X402ServiceDeps,
  settlement: Pick<Settlement, 'advance' | 'settleTimeoutMs' | 'reconcileGraceMs'>,
  w: WorkflowRow,
  content: WorkflowContent,
  request: PaidRequest,
): Promise<PaidResult> {
  const { clock } = deps
  const requirement = requirementOf(deps.scheme, content, request.url)
  checkInput(content, request.body)
  const carried = paymentOf(request.headers)
  if (carried === null) throw new PaymentRequired(requirement, 'X-PAYMENT or PAYMENT-SIGNATURE header is required')
  if ('error' in carried) throw new PaymentRequired(requirement, carried.error)
  const chainId = content.x402Config!.chainId!
  // Checked in the reference facilitator's order; the first problem is the 402's error.
  const problem = await deps.scheme.verify(chainId, requirement, carried.payment, clock.now())
  if (problem) throw new PaymentRequired(requirement, problem)
  const forFacilitator = facilitatorRequest(carried.version, carried.payment, requirement)
  await facilitatorVerdict(deps, requirement, forFacilitator)

  const claimedRow = await claim(deps, w, chainId, { carried, requirement, forFacilitator, request })
  const { claimed } = claimedRow
  let row = claimedRow.row
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
  return {
    ...answerOf(carried, requirement, row),
    waitMs: content.x402Config?.responseWaitMs ?? DEFAULT_RESPONSE_WAIT_MS,
  }
}
