/** What the wallet service answers of its rows: a wallet without its key, a contract's deployment. */
import type { DeploymentRow, WalletRow } from '../store/wallets.ts'
import { iso } from '../time.ts'

/** A wallet of the organization; its sealed key never leaves the service. */
export interface Wallet {
  id: string
  organizationId: string
  name: string
  address: string
  isDefault: boolean
  createdAt: string
  createdBy: string
}

/** A contract of the contract chat deployed from one of the organization's wallets. */
export interface Deployment {
  id: string
  contractId: string
  chainId: number
  address: string
  transactionHash: string
  walletId: string
  deployedAt: string
  deployedBy: string
}

export const toWallet = (r: WalletRow): Wallet => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  address: r.address,
  isDefault: r.is_default === 1,
  createdAt: iso(Number(r.created_at)),
  createdBy: r.created_by,
})

export const toDeployment = (d: DeploymentRow): Deployment => ({
  id: d.id,
  contractId: d.contract_id,
  chainId: Number(d.chain_id),
  address: d.address,
  transactionHash: d.transaction_hash,
  walletId: d.wallet_id,
  deployedAt: iso(Number(d.deployed_at)),
  deployedBy: d.deployed_by,
})
