/**
 * The AI credit ledger (`ai_credit_entries`, append-only) and its running balance
 * (`ai_credit_balances`). 1 credit = 1,000 tokens, rounded up. A turn reserves before it calls
 * the provider, then either settles by the tokens used (the difference returned or charged) or is
 * refunded in full when it failed before any output. Each turn has at most one entry of each kind,
 * so a retried settlement or refund never moves the balance twice.
 */
import type { SqlExecutor } from '../ports/store.ts'

export type CreditEntryKind = 'grant' | 'reserve' | 'settle' | 'refund'

export interface CreditEntry {
  id: string
  kind: CreditEntryKind
  /** Signed: positive adds to the balance. */
  amount: number
  turnId: string | null
  note: string
  createdAt: number
}

export function creditsForTokens(tokens: number): number {
  return Math.ceil(Math.max(0, tokens) / 1000)
}

interface EntryRow {
  id: string
  kind: string
  amount: number | string
  turn_id: string | null
  note: string
  created_at: number | string
}

export const aiCredits = {
  async balance(db: SqlExecutor, organizationId: string): Promise<number> {
    const row = await db.get<{ balance: number | string }>(
      'SELECT balance FROM ai_credit_balances WHERE organization_id = $1',
      [organizationId],
    )
    return row ? Number(row.balance) : 0
  },

  async entries(db: SqlExecutor, organizationId: string, limit = 100): Promise<CreditEntry[]> {
    const rows = await db.all<EntryRow>(
      'SELECT id, kind, amount, turn_id, note, created_at FROM ai_credit_entries WHERE organization_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2',
      [organizationId, limit],
    )
    return rows.map((row) => ({
      id: row.id,
      kind: row.kind as CreditEntryKind,
      amount: Number(row.amount),
      turnId: row.turn_id,
      note: row.note,
      createdAt: Number(row.created_at),
    }))
  },

  /** Adds (or, negative, removes) credits by the operator. */
  async grant(
    tx: SqlExecutor,
    entry: { id: string; organizationId: string; amount: number; note?: string; at: number },
  ): Promise<void> {
    await addToBalance(tx, entry.organizationId, entry.amount)
    await insertEntry(tx, { ...entry, kind: 'grant', turnId: null, note: entry.note ?? '' })
  },

  /**
   * Takes `amount` credits for a turn when the balance covers them; false (and nothing written)
   * when it does not or when the turn already reserved.
   */
  async reserve(
    tx: SqlExecutor,
    entry: { id: string; organizationId: string; turnId: string; amount: number; at: number },
  ): Promise<boolean> {
    if (await hasEntry(tx, entry.turnId, 'reserve')) return false
    const changed = await tx.run(
      'UPDATE ai_credit_balances SET balance = balance - $2 WHERE organization_id = $1 AND balance >= $2 AND balance > 0',
      [entry.organizationId, entry.amount],
    )
    if (changed !== 1) return false
    await insertEntry(tx, { ...entry, kind: 'reserve', amount: -entry.amount, note: '' })
    return true
  },

  /**
   * Settles a reserved turn by the tokens it used: the part of the reservation not used comes back,
   * use beyond it is charged (the balance may then go below zero, which stops the next turn).
   * Returns the credits charged in all; a second settlement changes nothing.
   */
  async settle(
    tx: SqlExecutor,
    entry: { id: string; organizationId: string; turnId: string; tokensUsed: number; at: number },
  ): Promise<number> {
    const reserved = await reservedFor(tx, entry.turnId)
    if (reserved === null) throw new Error(`turn ${entry.turnId} has no reservation`)
    const charged = creditsForTokens(entry.tokensUsed)
    if ((await hasEntry(tx, entry.turnId, 'settle')) || (await hasEntry(tx, entry.turnId, 'refund'))) return charged
    const difference = reserved - charged
    await addToBalance(tx, entry.organizationId, difference)
    await insertEntry(tx, {
      id: entry.id,
      organizationId: entry.organizationId,
      turnId: entry.turnId,
      kind: 'settle',
      amount: difference,
      note: `${entry.tokensUsed} tokens`,
      at: entry.at,
    })
    return charged
  },

  /** Gives a failed turn's whole reservation back; once only, and never after a settlement. */
  async refund(
    tx: SqlExecutor,
    entry: { id: string; organizationId: string; turnId: string; at: number },
  ): Promise<void> {
    const reserved = await reservedFor(tx, entry.turnId)
    if (reserved === null) return
    if ((await hasEntry(tx, entry.turnId, 'settle')) || (await hasEntry(tx, entry.turnId, 'refund'))) return
    await addToBalance(tx, entry.organizationId, reserved)
    await insertEntry(tx, {
      id: entry.id,
      organizationId: entry.organizationId,
      turnId: entry.turnId,
      kind: 'refund',
      amount: reserved,
      note: '',
      at: entry.at,
    })
  },
}

async function addToBalance(tx: SqlExecutor, organizationId: string, amount: number): Promise<void> {
  await tx.run(
    'INSERT INTO ai_credit_balances (organization_id, balance) VALUES ($1, $2) ON CONFLICT (organization_id) DO UPDATE SET balance = ai_credit_balances.balance + excluded.balance',
    [organizationId, amount],
  )
}

async function insertEntry(
  tx: SqlExecutor,
  e: {
    id: string
    organizationId: string
    kind: CreditEntryKind
    amount: number
    turnId: string | null
    note: string
    at: number
  },
): Promise<void> {
  await tx.run(
    'INSERT INTO ai_credit_entries (id, organization_id, kind, amount, turn_id, note, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [e.id, e.organizationId, e.kind, e.amount, e.turnId, e.note, e.at],
  )
}

async function hasEntry(tx: SqlExecutor, turnId: string, kind: CreditEntryKind): Promise<boolean> {
  return (
    (await tx.get('SELECT 1 AS one FROM ai_credit_entries WHERE turn_id = $1 AND kind = $2', [turnId, kind])) !==
    undefined
  )
}

async function reservedFor(tx: SqlExecutor, turnId: string): Promise<number | null> {
  const row = await tx.get<{ amount: number | string }>(
    "SELECT amount FROM ai_credit_entries WHERE turn_id = $1 AND kind = 'reserve'",
    [turnId],
  )
  return row ? -Number(row.amount) : null
}
