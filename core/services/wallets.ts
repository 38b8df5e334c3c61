/**
 * Organization wallets: EVM keys generated here or imported, sealed with the master key (like
 * connector secrets) and never answered; an organization's first wallet is its default. Balances
 * are read from the configured chains. Contracts written by the contract chat deploy from them.
 *
 * This file holds the contract and the wallets' own records (create, list, default, remove);
 * reading balances, transfers and deployments live beside it.
 */
import { badRequest, conflict, notFound } from '../errors.ts'
import type { Chains } from '../ports/chain.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import { deployments, type WalletRow, wallets } from '../store/wallets.ts'
import { actorOf, type Principal } from './auth.ts'
import { guarded, type OperationTable } from './operations.ts'
import { walletWithBalances } from './wallet-balances.ts'
import { deployFrom } from './wallet-deployments.ts'
import { type Deployment, toDeployment, toWallet, type Wallet } from './wallet-records.ts'
import { transferFrom } from './wallet-transfers.ts'

export { type Deployment, toDeployment, type Wallet } from './wallet-records.ts'

const KEY = /^0x[0-9a-fA-F]{64}$/

export interface WalletServiceDeps {
  store: Store
  clock: Clock
  ids: Ids
  secretBox: SecretBox
  chains: Chains
}

/** One chain's balances of a wallet; `native` is null and `error` says why when the chain could not be read. */
export interface WalletBalances {
  chainId: number
  network: string
  /** wei; "" when the chain could not be read */
  native: string
  tokens: { token: string; balance: string }[]
  /** why the chain could not be read; "" when it was */
  error: string
}

export interface WalletWithBalances extends Wallet {
  balances: WalletBalances[]
}

/** A transfer: `token` is an ERC-20 address or `native`, `amount` an integer in the token's smallest unit. */
export interface TransferBody {
  chainId: number
  token: string
  to: string
  amount: string
}

/** A transfer made, with the hash of its mined transaction. */
export interface Transfer extends TransferBody {
  walletId: string
  transactionHash: string
}

/** Where a contract deploys: from the named wallet (the default otherwise), on a configured chain. */
export interface DeployBody {
  walletId?: string
  chainId: number
  constructorArgs?: unknown[]
}

/** The organization's wallets; every operation takes the caller and stays inside its organization. */
export interface WalletService {
  /** Generates a key, or imports `privateKey`; the organization's first wallet becomes its default. */
  create(caller: Principal, body: { name: string; privateKey?: string }): Promise<Wallet>
  list(
    caller: Principal,
    page: { limit: number; offset: number },
  ): Promise<{ hasMore: boolean; items: Wallet[]; limit: number; offset: number }>
  /** A wallet with its balance of each configured chain's native token and of the tokens asked for. */
  get(caller: Principal, id: string, tokens?: readonly string[]): Promise<WalletWithBalances>
  makeDefault(caller: Principal, id: string): Promise<Wallet>
  /** Removes a wallet; when it was the default, the oldest one left becomes the default. */
  remove(caller: Principal, id: string): Promise<{ id: string; deleted: true }>
  /** `POST /v1/wallets/{id}/transfer`: sends the native token or an ERC-20 from the wallet; answers once mined. */
  transfer(caller: Principal, walletId: string, body: TransferBody): Promise<Transfer>
  /** Deploys a compiled contract of the contract chat from one of the organization's wallets. */
  deployContract(caller: Principal, contractId: string, body: DeployBody): Promise<Deployment>
  deploymentsOf(caller: Principal, contractId: string): Promise<Deployment[]>
}

const OPERATIONS: OperationTable<WalletService> = {
  list: ['wallet:read'],
  get: ['wallet:read'],
  deploymentsOf: ['wallet:read'],
  create: ['wallet:write'],
  makeDefault: ['wallet:write'],
  remove: ['wallet:write'],
  transfer: ['wallet:withdraw'],
  deployContract: ['wallet:withdraw'],
}

export function createWalletService(deps: WalletServiceDeps): WalletService {
  return guarded<WalletService>('wallets', OPERATIONS, {
    create: async (caller, body) => createWallet(deps, caller, body),
    list: async (caller, page) => listWallets(deps, caller, page),
    get: async (caller, id, tokens) => walletWithBalances(deps, caller, id, tokens),
    makeDefault: async (caller, id) => makeDefault(deps, caller, id),
    remove: async (caller, id) => removeWallet(deps, caller, id),
    transfer: async (caller, walletId, body) => transferFrom(deps, caller, walletId, body),
    deployContract: async (caller, contractId, body) => deployFrom(deps, caller, contractId, body),
    deploymentsOf: async (caller, contractId) =>
      (await deployments.ofContract(deps.store, caller.organizationId, contractId)).map(toDeployment),
  })
}

async function own(deps: WalletServiceDeps, caller: Principal, id: string): Promise<WalletRow> {
  const row = await wallets.byId(deps.store, caller.organizationId, id)
  if (!row) throw notFound('wallet')
  return row
}

async function createWallet(
  deps: WalletServiceDeps,
  caller: Principal,
  body: { name: string; privateKey?: string },
): Promise<Wallet> {
  const { store } = deps
  if (body.privateKey !== undefined && !KEY.test(body.privateKey))
    throw badRequest('privateKey must be 0x and 64 hex digits', [{ path: '/privateKey', message: 'not a private key' }])
  const key = body.privateKey ?? deps.chains.newPrivateKey()
  const address = deps.chains.addressOf(key)
  if (await wallets.byAddress(store, caller.organizationId, address))
    throw conflict(`the organization has a wallet with the address ${address}`)
  const sealed = await deps.secretBox.seal(key)
  const id = deps.ids.next('wal')
  await store.write(async (tx) => {
    const first = (await wallets.count(tx, caller.organizationId)) === 0
    await wallets.insert(tx, {
      id,
      organization_id: caller.organizationId,
      name: body.name,
      address,
      sealed_key: sealed,
      is_default: first ? 1 : 0,
      created_at: deps.clock.now(),
      created_by: actorOf(caller),
    })
  })
  return toWallet((await wallets.byId(store, caller.organizationId, id))!)
}

async function listWallets(deps: WalletServiceDeps, caller: Principal, page: { limit: number; offset: number }) {
  const rows = await wallets.list(deps.store, caller.organizationId, page.limit + 1, page.offset)
  return {
    hasMore: rows.length > page.limit,
    items: rows.slice(0, page.limit).map(toWallet),
    limit: page.limit,
    offset: page.offset,
  }
}

async function makeDefault(deps: WalletServiceDeps, caller: Principal, id: string): Promise<Wallet> {
  await own(deps, caller, id)
  await deps.store.write((tx) => wallets.makeDefault(tx, caller.organizationId, id))
  return toWallet((await wallets.byId(deps.store, caller.organizationId, id))!)
}

async function removeWallet(deps: WalletServiceDeps, caller: Principal, id: string) {
  const row = await own(deps, caller, id)
  await deps.store.write(async (tx) => {
    await wallets.remove(tx, caller.organizationId, id)
    if (row.is_default === 1) {
      const next = await wallets.oldest(tx, caller.organizationId)
      if (next) await wallets.makeDefault(tx, caller.organizationId, next.id)
    }
  })
  return { id, deleted: true as const }
}
