/**
 * Rows of agent cards (`agent_cards`: what may be shown, and the sealed details), their
 * allowances (`card_allowances`: who may use a card, where, how often, until when) and their
 * disclosures (`card_disclosures`: one-time handles, stored hashed, and their redemptions).
 */
import type { SqlExecutor } from '../ports/store.ts'

export interface CardRow {
  id: string
  organization_id: string
  name: string
  brand: string
  last4: string
  exp_month: number
  exp_year: number
  sealed_details: string
  created_by: string
  created_at: number
  deleted_at: number | null
}

export interface AllowanceRow {
  id: string
  card_id: string
  organization_id: string
  agent_types: string
  workflow_ids: string
  merchants: string
  max_uses: number
  uses: number
  expires_at: number
  created_by: string
  created_at: number
  revoked_at: number | null
}

export interface DisclosureRow {
  id: string
  card_id: string
  organization_id: string
  allowance_id: string
  handle_hash: string
  run_id: string | null
  requested_by: string
  expires_at: number
  created_at: number
  redeemed_at: number | null
  redeemed_run_id: string | null
  redeemed_merchant: string | null
}

export const cards = {
  /** A card of the organization that is not deleted. */
  byId: (db: SqlExecutor, organizationId: string, id: string) =>
    db.get<CardRow>('SELECT * FROM agent_cards WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL', [
      organizationId,
      id,
    ]),
  list: (db: SqlExecutor, organizationId: string) =>
    db.all<CardRow>(
      'SELECT * FROM agent_cards WHERE organization_id = $1 AND deleted_at IS NULL ORDER BY created_at, id',
      [organizationId],
    ),
  insert: (db: SqlExecutor, r: Omit<CardRow, 'deleted_at'>) =>
    db.run(
      `INSERT INTO agent_cards (id, organization_id, name, brand, last4, exp_month, exp_year, sealed_details, created_by, created_at, deleted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL)`,
      [
        r.id,
        r.organization_id,
        r.name,
        r.brand,
        r.last4,
        r.exp_month,
        r.exp_year,
        r.sealed_details,
        r.created_by,
        r.created_at,
      ],
    ),
  /** Deletes a card, erasing its details (only what may be shown stays, for the audit), and revokes its allowances. */
  async remove(tx: SqlExecutor, id: string, at: number): Promise<void> {
    await tx.run("UPDATE agent_cards SET deleted_at = $1, sealed_details = '' WHERE id = $2", [at, id])
    await tx.run('UPDATE card_allowances SET revoked_at = $1 WHERE card_id = $2 AND revoked_at IS NULL', [at, id])
  },
  /** The sealed details of a card that is not deleted. */
  sealedDetails: async (db: SqlExecutor, id: string) =>
    (
      await db.get<{ sealed_details: string }>(
        'SELECT sealed_details FROM agent_cards WHERE id = $1 AND deleted_at IS NULL',
        [id],
      )
    )?.sealed_details,
  /** The sealed details of the organization's stored cards, for its secret masks. */
  sealedOf: (db: SqlExecutor, organizationId: string) =>
    db.all<{ id: string; sealed_details: string }>(
      "SELECT id, sealed_details FROM agent_cards WHERE organization_id = $1 AND deleted_at IS NULL AND sealed_details <> '' ORDER BY id",
      [organizationId],
    ),
}

export const allowances = {
  insert: (db: SqlExecutor, r: Omit<AllowanceRow, 'uses' | 'revoked_at'>) =>
    db.run(
      `INSERT INTO card_allowances (id, card_id, organization_id, agent_types, workflow_ids, merchants, max_uses, uses, expires_at, created_by, created_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $9, $10, NULL)`,
      [
        r.id,
        r.card_id,
        r.organization_id,
        r.agent_types,
        r.workflow_ids,
        r.merchants,
        r.max_uses,
        r.expires_at,
        r.created_by,
        r.created_at,
      ],
    ),
  ofCard: (db: SqlExecutor, cardId: string) =>
    db.all<AllowanceRow>('SELECT * FROM card_allowances WHERE card_id = $1 ORDER BY created_at, id', [cardId]),
  /** The allowances of a card still usable at `at`: not revoked, not expired, uses left. */
  usable: (db: SqlExecutor, organizationId: string, cardId: string, at: number) =>
    db.all<AllowanceRow>(
      'SELECT * FROM card_allowances WHERE card_id = $1 AND organization_id = $2 AND revoked_at IS NULL AND expires_at > $3 AND uses < max_uses ORDER BY created_at, id',
      [cardId, organizationId, at],
    ),
  /** Takes one use, only while uses remain: 1 when taken. */
  takeUse: (tx: SqlExecutor, id: string) =>
    tx.run('UPDATE card_allowances SET uses = uses + 1 WHERE id = $1 AND uses < max_uses', [id]),
  merchants: async (db: SqlExecutor, id: string) =>
    JSON.parse(
      (await db.get<{ merchants: string }>('SELECT merchants FROM card_allowances WHERE id = $1', [id]))?.merchants ??
        '[]',
    ) as string[],
}

export const disclosures = {
  insert: (
    db: SqlExecutor,
    r: Pick<
      DisclosureRow,
      | 'id'
      | 'card_id'
      | 'organization_id'
      | 'allowance_id'
      | 'handle_hash'
      | 'run_id'
      | 'requested_by'
      | 'expires_at'
      | 'created_at'
    >,
  ) =>
    db.run(
      `INSERT INTO card_disclosures (id, card_id, organization_id, allowance_id, handle_hash, run_id, requested_by, expires_at, created_at, redeemed_at, redeemed_run_id, redeemed_merchant)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, NULL, NULL)`,
      [
        r.id,
        r.card_id,
        r.organization_id,
        r.allowance_id,
        r.handle_hash,
        r.run_id,
        r.requested_by,
        r.expires_at,
        r.created_at,
      ],
    ),
  byHandle: (db: SqlExecutor, organizationId: string, handleHash: string) =>
    db.get<Pick<DisclosureRow, 'id' | 'card_id' | 'allowance_id' | 'expires_at' | 'redeemed_at' | 'run_id'>>(
      'SELECT id, card_id, allowance_id, expires_at, redeemed_at, run_id FROM card_disclosures WHERE handle_hash = $1 AND organization_id = $2',
      [handleHash, organizationId],
    ),
  /** Records the one redemption of a handle: 1 when this was it. */
  redeem: (tx: SqlExecutor, id: string, r: { at: number; runId: string; merchant: string }) =>
    tx.run(
      'UPDATE card_disclosures SET redeemed_at = $1, redeemed_run_id = $2, redeemed_merchant = $3 WHERE id = $4 AND redeemed_at IS NULL',
      [r.at, r.runId, r.merchant, id],
    ),
  ofCard: (db: SqlExecutor, cardId: string) =>
    db.all<Omit<DisclosureRow, 'card_id' | 'organization_id' | 'allowance_id' | 'handle_hash'>>(
      'SELECT id, run_id, requested_by, created_at, expires_at, redeemed_at, redeemed_run_id, redeemed_merchant FROM card_disclosures WHERE card_id = $1 ORDER BY created_at, id',
      [cardId],
    ),
}
