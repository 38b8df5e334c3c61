/**
 * Settling x402 payments. A payment moves `verified → settling → settled | failed` (or `unknown`
 * while the chain has not told): submitted by the operator's relayer (or an external
 * facilitator), found again on the network after a timeout or a crash, and only once settled is
 * its run dispatched, with the payment's idempotency key. The reconciler finishes what a timeout
 * or a killed process left, from the chain's state. The chain accepts an authorization's nonce
 * once, so nothing here settles twice.
 */
import type { Clock } from '../ports/clock.ts'
import type { Dispatcher } from '../ports/engine.ts'
import type { Facilitator } from '../ports/facilitator.ts'
import type { Logger } from '../ports/logger.ts'
import type { PaymentScheme } from '../ports/payment-scheme.ts'
import type { Store } from '../ports/store.ts'
import { type PaymentRow, payments } from '../store/x402.ts'
import { advance as advanceStep } from './x402-settlement-steps.ts'

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

/** Settling payments: one step at a time for a request, and the reconciler for what was left. */
export interface Settlement {
  /** How long a paid request waits for its settlement to be mined. */
  readonly settleTimeoutMs: number
  /** Payments untouched this long are the reconciler's; a request in flight owns the others. */
  readonly reconcileGraceMs: number
  /** One step of a payment's settlement from whatever state it was left in, waiting up to `waitMs` for the chain. */
  advance(row: PaymentRow, waitMs: number): Promise<PaymentRow>
  /** Settlements left unfinished (a timeout, a killed process), finished from the chain's state; answers how many were open. */
  reconcile(): Promise<number>
  /** Reconciles on an interval; answers the function that stops it. */
  startReconciler(): () => Promise<void>
}

export function createSettlement(deps: SettlementDeps): Settlement {
  const { store, clock } = deps
  const settleTimeoutMs = deps.settleTimeoutMs ?? 20_000
  // Payments untouched this long are left to the reconciler (a request in flight owns the others).
  const reconcileGraceMs = settleTimeoutMs + 5_000
  const reconcileEveryMs = Math.min(10_000, Math.max(500, settleTimeoutMs))
  const advance = (row: PaymentRow, waitMs: number) => advanceStep(deps, row, waitMs)

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
