/** Rows of `x402_payments`: a payment's claim, its settlement state, and the run it paid for. */
import type { SqlExecutor } from '../ports/store.ts'

export type PaymentStatus = 'verified' | 'settling' | 'settled' | 'failed'

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
  created_at: number
  updated_at: number
}

export const payments = {
  /** Claims a nonce: false when the same (chain, token, payer, nonce) was claimed before. */
  async claim(db: SqlExecutor, p: PaymentRow): Promise<boolean> {
    const changed = await db.run(
      `INSERT INTO x402_payments (id, organization_id, workflow_id, chain_id, asset, payer, nonce, amount, pay_to, status, transaction_hash, run_id, event_id, error, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, NULL, NULL, NULL, $11, $11) ON CONFLICT (chain_id, asset, payer, nonce) DO NOTHING`,
      [p.id, p.organization_id, p.workflow_id, p.chain_id, p.asset, p.payer, p.nonce, p.amount, p.pay_to, p.status, p.created_at],
    )
    return changed === 1
  },
  byNonce: (db: SqlExecutor, chainId: number, asset: string, payer: string, nonce: string) =>
    db.get<PaymentRow>('SELECT * FROM x402_payments WHERE chain_id = $1 AND asset = $2 AND payer = $3 AND nonce = $4', [chainId, asset, payer, nonce]),
  update: (db: SqlExecutor, id: string, patch: { status: PaymentStatus; transaction_hash?: string | null; run_id?: string | null; event_id?: string | null; error?: string | null; at: number }) =>
    db.run(
      'UPDATE x402_payments SET status = $1, transaction_hash = COALESCE($2, transaction_hash), run_id = COALESCE($3, run_id), event_id = COALESCE($4, event_id), error = $5, updated_at = $6 WHERE id = $7',
      [patch.status, patch.transaction_hash ?? null, patch.run_id ?? null, patch.event_id ?? null, patch.error ?? null, patch.at, id],
    ),
  /** Live workflows with an x402Config that is discoverable: the Bazaar listing. */
  discoverable: (db: SqlExecutor) =>
    db.all<{ id: string; organization_id: string; content: string; updated_at: number }>(
      `SELECT w.id, w.organization_id, v.content, v.updated_at FROM workflows w JOIN workflow_versions v ON v.workflow_id = w.id AND v.version = w.live_version
       WHERE w.live_version IS NOT NULL AND w.live_status = 'active' AND w.archived_at IS NULL AND v.content LIKE '%"discoverable":true%'
       ORDER BY w.id`,
    ),
}
