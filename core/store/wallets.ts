/** Rows of `wallets` (sealed keys, addresses) and `contract_deployments`. */
import type { SqlExecutor } from '../ports/store.ts'

export interface WalletRow {
  id: string
  organization_id: string
  name: string
  address: string
  sealed_key: string
  is_default: number
  created_at: number
  created_by: string
}

export interface DeploymentRow {
  id: string
  contract_id: string
  organization_id: string
  chain_id: number
  address: string
  transaction_hash: string
  wallet_id: string
  deployed_at: number
  deployed_by: string
}

export const wallets = {
  insert: (db: SqlExecutor, w: WalletRow) =>
    db.run(
      'INSERT INTO wallets (id, organization_id, name, address, sealed_key, is_default, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [w.id, w.organization_id, w.name, w.address, w.sealed_key, w.is_default, w.created_at, w.created_by],
    ),
  byId: (db: SqlExecutor, organizationId: string, id: string) =>
    db.get<WalletRow>('SELECT * FROM wallets WHERE organization_id = $1 AND id = $2', [organizationId, id]),
  byAddress: (db: SqlExecutor, organizationId: string, address: string) =>
    db.get<WalletRow>('SELECT * FROM wallets WHERE organization_id = $1 AND lower(address) = lower($2)', [
      organizationId,
      address,
    ]),
  list: (db: SqlExecutor, organizationId: string, limit: number, offset: number) =>
    db.all<WalletRow>('SELECT * FROM wallets WHERE organization_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3', [
      organizationId,
      limit,
      offset,
    ]),
  count: async (db: SqlExecutor, organizationId: string) =>
    Number(
      (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM wallets WHERE organization_id = $1', [organizationId]))!
        .n,
    ),
  async makeDefault(db: SqlExecutor, organizationId: string, id: string) {
    await db.run('UPDATE wallets SET is_default = 0 WHERE organization_id = $1 AND is_default = 1', [organizationId])
    return db.run('UPDATE wallets SET is_default = 1 WHERE organization_id = $1 AND id = $2', [organizationId, id])
  },
  remove: (db: SqlExecutor, organizationId: string, id: string) =>
    db.run('DELETE FROM wallets WHERE organization_id = $1 AND id = $2', [organizationId, id]),
  /** The oldest wallet left, to be the default when the default one went. */
  oldest: (db: SqlExecutor, organizationId: string) =>
    db.get<WalletRow>('SELECT * FROM wallets WHERE organization_id = $1 ORDER BY created_at, id LIMIT 1', [
      organizationId,
    ]),
}

export const deployments = {
  insert: (db: SqlExecutor, d: DeploymentRow) =>
    db.run(
      'INSERT INTO contract_deployments (id, contract_id, organization_id, chain_id, address, transaction_hash, wallet_id, deployed_at, deployed_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      [
        d.id,
        d.contract_id,
        d.organization_id,
        d.chain_id,
        d.address,
        d.transaction_hash,
        d.wallet_id,
        d.deployed_at,
        d.deployed_by,
      ],
    ),
  ofContract: (db: SqlExecutor, organizationId: string, contractId: string) =>
    db.all<DeploymentRow>(
      'SELECT * FROM contract_deployments WHERE organization_id = $1 AND contract_id = $2 ORDER BY deployed_at, id',
      [organizationId, contractId],
    ),
}
