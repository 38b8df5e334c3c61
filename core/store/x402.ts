/** Rows of `x402_payments`: a payment's claim, its settlement state, and the run it paid for. */
import type { SqlExecutor } from '../ports/store.ts'

/**
 * verified → settling (the relayer's transaction signed, its hash stored, then broadcast) →
 * settled | failed; `unknown` when the outcome did not arrive in time: reconciled from the chain.
 */
export type PaymentStatus = 'verified' | 'settling' | 'settled' | 'failed' | 'unknown'

export interface PaymentRow {
  id: string
  organization_id: string
  workflow_id: string
  chain_id: number
  asset: string
  payer: string
  nonce: string
  amount: string
  pay_to: string
  status: PaymentStatus
  transaction_hash: string | null
  run_id: string | null
  event_id: string | null
  error: string | null
  /** `{ authorization, signature }` as the payer signed them. */
  authorization_payload: string | null
  valid_before: number | null
  raw_transaction: string | null
  /** The trigger event of the run, dispatched once settled. */
  trigger_event: string | null
  created_at: number
  updated_at: number
}

export const payments = {
  /** Claims a nonce: false when the same (chain, token, payer, nonce) was claimed before. */
  async claim(
    db: SqlExecutor,
    p: Omit<PaymentRow, 'transaction_hash' | 'run_id' | 'event_id' | 'error' | 'raw_transaction'>,
  ): Promise<boolean> {
    const changed = await db.run(
      `INSERT INTO x402_payments (id, organization_id, workflow_id, chain_id, asset, payer, nonce, amount, pay_to, status, transaction_hash, run_id, event_id, error,
         authorization_payload, valid_before, raw_transaction, trigger_event, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, NULL, NULL, NULL, $11, $12, NULL, $13, $14, $14) ON CONFLICT (chain_id, asset, payer, nonce) DO NOTHING`,
      [
        p.id,
        p.organization_id,
        p.workflow_id,
        p.chain_id,
        p.asset,
        p.payer,
        p.nonce,
        p.amount,
        p.pay_to,
        p.status,
        p.authorization_payload,
        p.valid_before,
        p.trigger_event,
        p.created_at,
      ],
    )
    return changed === 1
  },
  byId: (db: SqlExecutor, id: string) => db.get<PaymentRow>('SELECT * FROM x402_payments WHERE id = $1', [id]),
  /** The settled payments that started these runs (an unpaid run has none). */
  ofRuns: (db: SqlExecutor, runIds: readonly string[]) =>
    runIds.length === 0
      ? Promise.resolve([] as PaymentRow[])
      : db.all<PaymentRow>(
          `SELECT * FROM x402_payments WHERE status = 'settled' AND run_id IN (${runIds.map((_, i) => `$${i + 1}`).join(', ')})`,
          [...runIds],
        ),
  /** Payments whose settlement or run is unfinished and untouched since `before`: the reconciler's work. */
  open: (db: SqlExecutor, before: number, limit: number) =>
    db.all<PaymentRow>(
      `SELECT * FROM x402_payments WHERE updated_at < $1 AND (status IN ('verified', 'settling', 'unknown') OR (status = 'settled' AND run_id IS NULL))
       ORDER BY updated_at LIMIT $2`,
      [before, limit],
    ),
  /** Stores the relayer's signed transaction before it is broadcast. */
  submitted: (db: SqlExecutor, id: string, hash: string, raw: string | null, at: number) =>
    db.run(
      `UPDATE x402_payments SET status = 'settling', transaction_hash = $1, raw_transaction = $2, updated_at = $3 WHERE id = $4`,
      [hash, raw, at, id],
    ),
  byNonce: (db: SqlExecutor, chainId: number, asset: string, payer: string, nonce: string) =>
    db.get<PaymentRow>('SELECT * FROM x402_payments WHERE chain_id = $1 AND asset = $2 AND payer = $3 AND nonce = $4', [
      chainId,
      asset,
      payer,
      nonce,
    ]),
  update: (
    db: SqlExecutor,
    id: string,
    patch: {
      status: PaymentStatus
      transaction_hash?: string | null
      run_id?: string | null
      event_id?: string | null
      error?: string | null
      at: number
    },
  ) =>
    db.run(
      'UPDATE x402_payments SET status = $1, transaction_hash = COALESCE($2, transaction_hash), run_id = COALESCE($3, run_id), event_id = COALESCE($4, event_id), error = $5, updated_at = $6 WHERE id = $7',
      [
        patch.status,
        patch.transaction_hash ?? null,
        patch.run_id ?? null,
        patch.event_id ?? null,
        patch.error ?? null,
        patch.at,
        id,
      ],
    ),
  /** Live workflows with an x402Config that is discoverable: the Bazaar listing. */
  discoverable: (db: SqlExecutor) =>
    db.all<{ id: string; organization_id: string; content: string; updated_at: number }>(
      `SELECT w.id, w.organization_id, v.content, v.updated_at FROM workflows w JOIN workflow_versions v ON v.workflow_id = w.id AND v.version = w.live_version
       WHERE w.live_version IS NOT NULL AND w.live_status = 'active' AND w.archived_at IS NULL AND v.content LIKE '%"discoverable":true%'
       ORDER BY w.id`,
    ),
}
