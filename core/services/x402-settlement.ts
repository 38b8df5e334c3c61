/**
 * Settling x402 payments. A payment moves `verified → settling → settled | failed` (or `unknown`
 * while the chain has not told): submitted by the operator's relayer (or an external
 * facilitator), found again on the network after a timeout or a crash, and only once settled is
 * its run dispatched, with the payment's idempotency key. The reconciler finishes what a timeout
 * or a killed process left, from the chain's state. The chain accepts an authorization's nonce
 * once, so nothing here settles twice.
 */
import type { PaymentPayload } from '../domain/x402.ts'
import type { Clock } from '../ports/clock.ts'
import type { Dispatcher, TriggerEvent } from '../ports/engine.ts'
import type { Facilitator, FacilitatorRequest } from '../ports/facilitator.ts'
import type { Logger } from '../ports/logger.ts'
import type { PaymentScheme } from '../ports/payment-scheme.ts'
import type { Store } from '../ports/store.ts'
import { type PaymentRow, type PaymentStatus, payments } from '../store/x402.ts'

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

export interface SettlementDeps {
  store: Store
  clock: Clock
  logger: Logger
  /** The x402 `exact` scheme on the configured networks (EVM: adapters/evm/payment-scheme.ts). */
  scheme: PaymentScheme
  dispatcher: Dispatcher
  /** AUTOMATON_X402_RELAYER_KEY: the key that submits authorizations and pays their gas. */
  relayerKey: string | null
  /** AUTOMATON_X402_SETTLE_TIMEOUT_MS: how long a paid request waits for its settlement to be mined. */
  settleTimeoutMs?: number
  /** AUTOMATON_X402_FACILITATOR_URL: an external facilitator verifies and settles instead of the relayer. */
  facilitator?: Facilitator | null
}

export function createSettlement(deps: SettlementDeps) {
  const { store, clock } = deps
  const settleTimeoutMs = deps.settleTimeoutMs ?? 20_000
  // Payments untouched this long are left to the reconciler (a request in flight owns the others).
  const reconcileGraceMs = settleTimeoutMs + 5_000
  const reconcileEveryMs = Math.min(10_000, Math.max(500, settleTimeoutMs))

  /** Writes a step of a payment's settlement, and keeps the row as written. */
  async function set(p: Progress, patch: Partial<PaymentRow> & { status: PaymentStatus }): Promise<PaymentRow> {
    await store.write((tx) => payments.update(tx, p.row.id, { ...patch, at: clock.now() }))
    p.row = { ...p.row, ...patch, updated_at: clock.now() }
    return p.row
  }

  /**
   * Submits a payment: to the facilitator when there is one, else signed and sent by the
   * operator's relayer, the transaction's hash stored before it is broadcast.
   */
  async function submit(p: Progress, stored: StoredAuthorization): Promise<PaymentRow> {
    if (deps.facilitator) {
      await set(p, { status: 'settling' })
      let answer: Awaited<ReturnType<Facilitator['settle']>>
      try {
        answer = await deps.facilitator.settle(stored.facilitator)
      } catch (error) {
        // Perhaps settled, perhaps not: the chain tells later.
        return set(p, {
          status: 'unknown',
          error: (error instanceof Error ? error.message.split('\n')[0] : String(error)).slice(0, 500),
        })
      }
      if (!answer.success) return set(p, { status: 'failed', error: answer.errorReason.slice(0, 500) })
      return set(p, { status: 'settling', transaction_hash: answer.transaction })
    }
    if (!deps.relayerKey)
      return set(p, { status: 'failed', error: 'no relayer configured (AUTOMATON_X402_RELAYER_KEY)' })
    try {
      const hash = await deps.scheme.settle(
        p.row.chain_id,
        deps.relayerKey,
        p.row.asset,
        stored.authorization,
        stored.signature,
        async (hash, raw) => {
          await store.write((tx) => payments.submitted(tx, p.row.id, hash, raw, clock.now()))
          p.row = { ...p.row, status: 'settling', transaction_hash: hash, raw_transaction: raw }
        },
      )
      p.row = { ...p.row, transaction_hash: hash }
      return p.row
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error)
      // Signed but perhaps sent: the chain decides later. Never signed: nothing was paid.
      if (p.row.status === 'settling') return set(p, { status: 'unknown', error: message.slice(0, 500) })
      deps.logger.warn('an x402 settlement failed', {
        paymentId: p.row.id,
        workflowId: p.row.workflow_id,
        error: message,
      })
      return set(p, { status: 'failed', error: message.slice(0, 500) })
    }
  }

  /**
   * One step of a payment's settlement, from whatever state it was left in (by this request, a
   * timeout, or a process killed mid-way): submits it, looks up what the chain did with it,
   * broadcasts the relayer's transaction again, or gives up once the authorization expired
   * unused. The chain accepts an authorization's nonce once, so nothing here settles twice.
   */
  async function advance(row: PaymentRow, waitMs: number): Promise<PaymentRow> {
    if (row.status !== 'verified' && row.status !== 'settling' && row.status !== 'unknown') return settledThen(row)
    const p: Progress = { row }
    const stored = JSON.parse(row.authorization_payload!) as StoredAuthorization
    const expired = Number(row.valid_before) + EXPIRY_SLACK_S < Math.floor(clock.now() / 1000)
    const use = () => deps.scheme.used(row.chain_id, row.asset, stored.authorization.from, stored.authorization.nonce)
    /** Settled by whoever sent it: the transaction is the one that used the nonce, when found. */
    const settledByChain = async () => {
      const found = await use()
      if (!found) return null
      return settledThen(
        await set(p, { status: 'settled', transaction_hash: found.transaction ?? p.row.transaction_hash }),
      )
    }
    if (!p.row.transaction_hash) {
      const settled = await settledByChain()
      if (settled) return settled
      if (expired)
        return set(p, { status: 'failed', error: 'the authorization expired before it was settled: nothing was paid' })
      const after = await submit(p, stored)
      if (after.status === 'failed' || after.status === 'unknown') return after
    } else if (p.row.raw_transaction && !expired) {
      const known = await deps.scheme.outcome(p.row.chain_id, p.row.transaction_hash, 0)
      // The relayer's turn went to another transaction: this one can never be mined. Send anew.
      if (
        known === 'pending' &&
        (await deps.scheme.rebroadcast(p.row.chain_id, p.row.raw_transaction)) === 'replaced' &&
        (await use()) === null
      )
        await submit(p, stored)
    }
    const outcome = await deps.scheme.outcome(p.row.chain_id, p.row.transaction_hash!, waitMs)
    if (outcome === 'success') return settledThen(await set(p, { status: 'settled' }))
    const settled = await settledByChain()
    if (settled) return settled
    if (outcome === 'reverted')
      return set(p, {
        status: 'failed',
        error: `the transfer reverted (transaction ${p.row.transaction_hash}): nothing was paid`,
      })
    if (expired)
      return set(p, { status: 'failed', error: 'the authorization expired before it was settled: nothing was paid' })
    return set(p, { status: 'unknown' })
  }

  /** Paid: now the run, once. Its idempotency key is the payment's, so no retry starts a second. */
  async function settledThen(row: PaymentRow): Promise<PaymentRow> {
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
    await store.write((tx) =>
      payments.update(tx, row.id, { status: 'settled', run_id: runId, event_id: dispatched.eventId, at: clock.now() }),
    )
    return { ...row, run_id: runId, event_id: dispatched.eventId }
  }

  /** Settlements left unfinished (a timeout, a killed process), finished from the chain's state. */
  async function reconcile(): Promise<number> {
    const open = await payments.open(store, clock.now() - reconcileGraceMs, 50)
    for (const row of open) {
      try {
        const after = await advance(row, 0)
        if (after.status !== row.status)
          deps.logger.info('an x402 payment was reconciled', {
            paymentId: row.id,
            from: row.status,
            to: after.status,
            runId: after.run_id,
          })
      } catch (error) {
        deps.logger.warn('an x402 payment could not be reconciled yet', {
          paymentId: row.id,
          error: error instanceof Error ? error.message.split('\n')[0] : String(error),
        })
      }
    }
    return open.length
  }

  return {
    settleTimeoutMs,
    reconcileGraceMs,
    advance,
    reconcile,
    /** Reconciles on an interval until stopped. */
    startReconciler() {
      let stopped = false
      let running: Promise<unknown> = Promise.resolve()
      const tick = () => {
        if (stopped) return
        running = reconcile()
          .catch(() => 0)
          .finally(() => {
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
  }
}
