/**
 * Organization wallets: EVM keys generated here or imported, sealed with the master key (like
 * connector secrets) and never answered; an organization's first wallet is its default. Balances
 * are read from the configured chains. Contracts written by the contract chat deploy from them.
 */
import { badRequest, conflict, notFound, unavailable } from '../errors.ts'
import { type Chains, ContractArgumentsError } from '../ports/chain.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import { contracts } from '../store/chat-messages.ts'
import { deployments, type DeploymentRow, wallets, type WalletRow } from '../store/wallets.ts'
import { iso } from '../time.ts'
import { actorOf, type Principal } from './auth.ts'
import { guarded } from './operations.ts'

const KEY = /^0x[0-9a-fA-F]{64}$/
const ADDRESS = /^0x[0-9a-fA-F]{40}$/

const toWallet = (r: WalletRow) => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  address: r.address,
  isDefault: r.is_default === 1,
  createdAt: iso(Number(r.created_at)),
  createdBy: r.created_by,
})

export const toDeployment = (d: DeploymentRow) => ({
  id: d.id,
  contractId: d.contract_id,
  chainId: Number(d.chain_id),
  address: d.address,
  transactionHash: d.transaction_hash,
  walletId: d.wallet_id,
  deployedAt: iso(Number(d.deployed_at)),
  deployedBy: d.deployed_by,
})

export function createWalletService(deps: {
  store: Store
  clock: Clock
  ids: Ids
  secretBox: SecretBox
  chains: Chains
}) {
  const { store, clock } = deps

  async function own(caller: Principal, id: string): Promise<WalletRow> {
    const row = await wallets.byId(store, caller.organizationId, id)
    if (!row) throw notFound('wallet')
    return row
  }

  function chainOf(chainId: number) {
    const chain = deps.chains.get(chainId)
    if (!chain) {
      const known = deps.chains.list().map((c) => c.chainId)
      throw badRequest(
        `chain ${chainId} is not configured${known.length ? ` (configured: ${known.join(', ')})` : ': the operator sets AUTOMATON_CHAINS'}`,
        [{ path: '/chainId', message: 'not configured' }],
      )
    }
    return chain
  }

  return guarded(
    'wallets',
    {
      list: ['wallet:read'],
      get: ['wallet:read'],
      deploymentsOf: ['wallet:read'],
      create: ['wallet:write'],
      makeDefault: ['wallet:write'],
      remove: ['wallet:write'],
      transfer: ['wallet:withdraw'],
      deployContract: ['wallet:withdraw'],
    },
    {
      async create(caller: Principal, body: { name: string; privateKey?: string }) {
        if (body.privateKey !== undefined && !KEY.test(body.privateKey))
          throw badRequest('privateKey must be 0x and 64 hex digits', [
            { path: '/privateKey', message: 'not a private key' },
          ])
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
            created_at: clock.now(),
            created_by: actorOf(caller),
          })
        })
        return toWallet((await wallets.byId(store, caller.organizationId, id))!)
      },

      async list(caller: Principal, page: { limit: number; offset: number }) {
        const rows = await wallets.list(store, caller.organizationId, page.limit + 1, page.offset)
        return {
          hasMore: rows.length > page.limit,
          items: rows.slice(0, page.limit).map(toWallet),
          limit: page.limit,
          offset: page.offset,
        }
      },

      /** A wallet with its balance of each configured chain's native token and of the tokens asked for. */
      async get(caller: Principal, id: string, tokens: readonly string[] = []) {
        const row = await own(caller, id)
        for (const [i, token] of tokens.entries()) {
          if (!ADDRESS.test(token))
            throw badRequest('tokens must be contract addresses', [
              { path: `/tokens/${i}`, in: 'query', message: 'not an address' },
            ])
        }
        const balances = await Promise.all(
          deps.chains.list().map(async (chain) => {
            try {
              const native = await deps.chains.nativeBalance(chain.chainId, row.address)
              const held = await Promise.all(
                tokens.map(async (token) => ({
                  token,
                  balance: String(await deps.chains.tokenBalance(chain.chainId, token, row.address)),
                })),
              )
              return { chainId: chain.chainId, network: chain.network, native: String(native), tokens: held }
            } catch (error) {
              return {
                chainId: chain.chainId,
                network: chain.network,
                native: null,
                tokens: [],
                error: `the chain could not be read: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
              }
            }
          }),
        )
        return { ...toWallet(row), balances }
      },

      async makeDefault(caller: Principal, id: string) {
        await own(caller, id)
        await store.write((tx) => wallets.makeDefault(tx, caller.organizationId, id))
        return toWallet((await wallets.byId(store, caller.organizationId, id))!)
      },

      async remove(caller: Principal, id: string) {
        const row = await own(caller, id)
        await store.write(async (tx) => {
          await wallets.remove(tx, caller.organizationId, id)
          if (row.is_default === 1) {
            const next = await wallets.oldest(tx, caller.organizationId)
            if (next) await wallets.makeDefault(tx, caller.organizationId, next.id)
          }
        })
        return { id, deleted: true as const }
      },

      /** Deploys a compiled contract of the contract chat from one of the organization's wallets. */
      async deployContract(
        caller: Principal,
        contractId: string,
        body: { walletId?: string; chainId: number; constructorArgs?: unknown[] },
      ) {
        const contract = await contracts.byId(store, caller.organizationId, contractId)
        if (!contract) throw notFound('contract')
        if (contract.status !== 'compiled' || !contract.abi || !contract.bytecode)
          throw conflict(`the contract is ${contract.status}: only a compiled contract deploys`)
        const chain = chainOf(body.chainId)
        const wallet = body.walletId
          ? await wallets.byId(store, caller.organizationId, body.walletId)
          : (await wallets.list(store, caller.organizationId, 100, 0)).find((w) => w.is_default === 1)
        if (!wallet)
          throw badRequest(
            body.walletId ? 'no such wallet in this organization' : 'the organization has no wallet: create one first',
            [{ path: '/walletId', message: 'unknown wallet' }],
          )
        const key = await deps.secretBox.open(wallet.sealed_key)
        let deployed: { address: string; transactionHash: string }
        try {
          deployed = await deps.chains.deployContract(chain.chainId, key, {
            abi: JSON.parse(contract.abi) as unknown[],
            bytecode: contract.bytecode,
            args: body.constructorArgs ?? [],
          })
        } catch (error) {
          const message = error instanceof Error ? error.message.split('\n')[0] : String(error)
          if (error instanceof ContractArgumentsError)
            throw badRequest(`the constructor arguments do not fit: ${message}`, [
              { path: '/constructorArgs', message },
            ])
          if (/insufficient funds|exceeds the balance/i.test(message))
            throw badRequest(`the wallet ${wallet.address} cannot pay for the deployment on chain ${chain.chainId}`, [
              { path: '/walletId', message: 'insufficient funds' },
            ])
          throw unavailable(`the deployment on chain ${chain.chainId} failed: ${message}`)
        }
        const row: DeploymentRow = {
          id: deps.ids.next('dep'),
          contract_id: contractId,
          organization_id: caller.organizationId,
          chain_id: chain.chainId,
          address: deployed.address,
          transaction_hash: deployed.transactionHash,
          wallet_id: wallet.id,
          deployed_at: clock.now(),
          deployed_by: actorOf(caller),
        }
        await store.write((tx) => deployments.insert(tx, row))
        return toDeployment(row)
      },

      /** `POST /v1/wallets/{id}/transfer`: sends the native token or an ERC-20 from the wallet; answers once mined. */
      async transfer(
        caller: Principal,
        walletId: string,
        body: { chainId: number; token: string; to: string; amount: string },
      ) {
        const wallet = await wallets.byId(store, caller.organizationId, walletId)
        if (!wallet) throw notFound('wallet')
        const chain = chainOf(body.chainId)
        const problems = [
          ...(body.token === 'native' || /^0x[0-9a-fA-F]{40}$/.test(body.token)
            ? []
            : [{ path: '/token', message: 'an ERC-20 address (0x…) or native' }]),
          ...(/^0x[0-9a-fA-F]{40}$/.test(body.to) ? [] : [{ path: '/to', message: 'an address (0x…)' }]),
          ...(/^[0-9]{1,78}$/.test(body.amount) && BigInt(body.amount) > 0n
            ? []
            : [{ path: '/amount', message: "a positive integer in the token's smallest unit" }]),
        ]
        if (problems.length > 0) throw badRequest('the transfer is invalid', problems)
        const key = await deps.secretBox.open(wallet.sealed_key)
        try {
          const transactionHash = await deps.chains.transfer(chain.chainId, key, {
            token: body.token,
            to: body.to,
            amount: BigInt(body.amount),
          })
          return {
            walletId: wallet.id,
            chainId: chain.chainId,
            token: body.token,
            to: body.to,
            amount: body.amount,
            transactionHash,
          }
        } catch (error) {
          const message = error instanceof Error ? error.message.split('\n')[0] : String(error)
          if (/insufficient funds|exceeds the balance|transfer amount exceeds|reverted/i.test(message)) {
            throw badRequest(
              `the wallet ${wallet.address} cannot make this transfer on chain ${chain.chainId}: ${message}`,
              [{ path: '/amount', message: 'insufficient funds' }],
            )
          }
          throw unavailable(`the transfer on chain ${chain.chainId} failed: ${message}`)
        }
      },

      deploymentsOf: async (caller: Principal, contractId: string) =>
        (await deployments.ofContract(store, caller.organizationId, contractId)).map(toDeployment),
    },
  )
}

export type WalletService = ReturnType<typeof createWalletService>
