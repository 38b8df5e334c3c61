/**
 * The steps of an x402 payment's settlement: submitting it (to the facilitator or through the
 * operator's relayer), finding what the chain did with it, and dispatching its run once settled.
 * Each step starts from the payment's row as last written, so a timeout or a crash mid-way is
 * picked up by the next step.
 */
import type { PaymentPayload } from '../domain/x402.ts'
import type { TriggerEvent } from '../ports/engine.ts'
import type { Facilitator, FacilitatorRequest } from '../ports/facilitator.ts'
import { type PaymentRow, type PaymentStatus, payments } from '../store/x402.ts'
import type { SettlementDeps } from './x402-settlement.ts'

/** Past its validBefore by this much (clocks differ), an unused authorization can never settle. */
const EXPIRY_SLACK_S = 60

/** What a claimed payment keeps to be settled: the payer's authorization, its signature, the facilitator's request. */
interface StoredAuthorization {
  authorization: PaymentPayload['payload']['authorization']
  signature: string
  facilitator: FacilitatorRequest
}

/** A payment being advanced: its row as last written. */
interface Progress {
  row: PaymentRow
}

/** Writes a step of a payment's settlement, and keeps the row as written. */
async function set(
  deps: SettlementDeps,
  p: Progress,
  patch: Partial<PaymentRow> & { status: PaymentStatus },
): Promise<PaymentRow> {
  await deps.store.write((tx) => payments.update(tx, p.row.id, { ...patch, at: deps.clock.now() }))
  p.row = { ...p.row, ...patch, updated_at: deps.clock.now() }
  return p.row
}

/** Hands a payment to the external facilitator, which verifies and settles it. */
async function submitToFacilitator(
  deps: SettlementDeps,
  facilitator: Facilitator,
  p: Progress,
  stored: StoredAuthorization,
): Promise<PaymentRow> {
  await set(deps, p, { status: 'settling' })
  let answer: Awaited<ReturnType<Facilitator['settle']>>
  try {
    answer = await facilitator.settle(stored.facilitator)
  } catch (error) {
    // Perhaps settled, perhaps not: the chain tells later.
    return set(deps, p, {
      status: 'unknown',
      error: (error instanceof Error ? error.message.split('\n')[0] : String(error)).slice(0, 500),
    })
  }
  if (!answer.success) return set(deps, p, { status: 'failed', error: answer.errorReason.slice(0, 500) })
  return set(deps, p, { status: 'settling', transaction_hash: answer.transaction })
}

/**
 * Submits a payment: to the facilitator when there is one, else signed and sent by the
 * operator's relayer, the transaction's hash stored before it is broadcast.
 */
export async function submit(deps: SettlementDeps, p: Progress, stored: StoredAuthorization): Promise<PaymentRow> {
  if (deps.facilitator) return submitToFacilitator(deps, deps.facilitator, p, stored)
  if (!deps.relayerKey)
    return set(deps, p, { status: 'failed', error: 'no relayer configured (AUTOMATON_X402_RELAYER_KEY)' })
  try {
    const hash = await deps.scheme.settle(
      p.row.chain_id,
      deps.relayerKey,
      p.row.asset,
      stored.authorization,
      stored.signature,
      async (hash, raw) => {
        await deps.store.write((tx) => payments.submitted(tx, p.row.id, hash, raw, deps.clock.now()))
        p.row = { ...p.row, status: 'settling', transaction_hash: hash, raw_transaction: raw }
      },
    )
    p.row = { ...p.row, transaction_hash: hash }
    return p.row
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error)
    // Signed but perhaps sent: the chain decides later. Never signed: nothing was paid.
    if (p.row.status === 'settling') return set(deps, p, { status: 'unknown', error: message.slice(0, 500) })
    deps.logger.warn('an x402 settlement failed', {
      paymentId: p.row.id,
      workflowId: p.row.workflow_id,
      error: message,
    })
    return set(deps, p, { status: 'failed', error: message.slice(0, 500) })
  }
}

/**
 * One step of a payment's settlement, from whatever state it was left in (by this request, a
 * timeout, or a process killed mid-way): submits it, looks up what the chain did with it,
 * broadcasts the relayer's transaction again, or gives up once the authorization expired
 * unused. The chain accepts an authorization's nonce once, so nothing here settles twice.
 */
export async function advance(deps: SettlementDeps, row: PaymentRow, waitMs: number): Promise<PaymentRow> {
  if (row.status !== 'verified' && row.status !== 'settling' && row.status !== 'unknown') return settledThen(deps, row)
  const p: Progress = { row }
  const stored = JSON.parse(row.authorization_payload!) as StoredAuthorization
  const expired = Number(row.valid_before) + EXPIRY_SLACK_S < Math.floor(deps.clock.now() / 1000)
  const use = () => deps.scheme.used(row.chain_id, row.asset, stored.authorization.from, stored.authorization.nonce)
  /** Settled by whoever sent it: the transaction is the one that used the nonce, when found. */
  const settledByChain = async () => {
    const found = await use()
    if (!found) return null
    return settledThen(
      deps,
      await set(deps, p, { status: 'settled', transaction_hash: found.transaction ?? p.row.transaction_hash }),
    )
  }
  if (!p.row.transaction_hash) {
    const settled = await settledByChain()
    if (settled) return settled
    if (expired)
      return set(deps, p, {
        status: 'failed',
        error: 'the authorization expired before it was settled: nothing was paid',
      })
    const after = await submit(deps, p, stored)
    if (after.status === 'failed' || after.status === 'unknown') return after
  } else if (p.row.raw_transaction && !expired) {
    const known = await deps.scheme.outcome(p.row.chain_id, p.row.transaction_hash, 0)
    // The relayer's turn went to another transaction: this one can never be mined. Send anew.
    if (
      known === 'pending' &&
      (await deps.scheme.rebroadcast(p.row.chain_id, p.row.raw_transaction)) === 'replaced' &&
      (await use()) === null
    )
      await submit(deps, p, stored)
  }
  const outcome = await deps.scheme.outcome(p.row.chain_id, p.row.transaction_hash!, waitMs)
  if (outcome === 'success') return settledThen(deps, await set(deps, p, { status: 'settled' }))
  const settled = await settledByChain()
  if (settled) return settled
  if (outcome === 'reverted')
    return set(deps, p, {
      status: 'failed',
      error: `the transfer reverted (transaction ${p.row.transaction_hash}): nothing was paid`,
    })
  if (expired)
    return set(deps, p, {
      status: 'failed',
      error: 'the authorization expired before it was settled: nothing was paid',
    })
  return set(deps, p, { status: 'unknown' })
}

/** Paid: now the run, once. Its idempotency key is the payment's, so no retry starts a second. */
export async function settledThen(deps: SettlementDeps, row: PaymentRow): Promise<PaymentRow> {
  if (row.status !== 'settled' || row.event_id) return row
  const dispatched = await deps.dispatcher.dispatch({
    organizationId: row.organization_id,
    workflowId: row.workflow_id,
    version: 'live',
    automatic: true,
    triggeredBy: 'webhook',
    event: JSON.parse(row.trigger_event!) as TriggerEvent,
    idempotencyKey: `x402:${row.id}`,
    paid: true,
  })
  const runId = dispatched.action === 'triggered' ? dispatched.runId : (dispatched.runId ?? null)
  await deps.store.write((tx) =>
    payments.update(tx, row.id, {
      status: 'settled',
      run_id: runId,
      event_id: dispatched.eventId,
      at: deps.clock.now(),
    }),
  )
  return { ...row, run_id: runId, event_id: dispatched.eventId }
}
