/** Deploying a compiled contract of the contract chat from one of the organization's wallets. */
import { badRequest, conflict, notFound, unavailable } from '../errors.ts'
import { ContractArgumentsError } from '../ports/chain.ts'
import { contracts } from '../store/chat-messages.ts'
import { type DeploymentRow, deployments, type WalletRow, wallets } from '../store/wallets.ts'
import { actorOf, type Principal } from './auth.ts'
import { type Deployment, toDeployment } from './wallet-records.ts'
import { configuredChain, firstLine } from './wallet-transfers.ts'
import type { DeployBody, WalletServiceDeps } from './wallets.ts'

/** Deploys a compiled contract of the contract chat from one of the organization's wallets. */
export async function deployFrom(
  deps: WalletServiceDeps,
  caller: Principal,
  contractId: string,
  body: DeployBody,
): Promise<Deployment> {
  const { store } = deps
  const contract = await contracts.byId(store, caller.organizationId, contractId)
  if (!contract) throw notFound('contract')
  if (contract.status !== 'compiled' || !contract.abi || !contract.bytecode)
    throw conflict(`the contract is ${contract.status}: only a compiled contract deploys`)
  const chain = configuredChain(deps.chains, body.chainId)
  const wallet = await deployingWallet(deps, caller, body.walletId)
  const key = await deps.secretBox.open(wallet.sealed_key)
  let deployed: { address: string; transactionHash: string }
  try {
    deployed = await deps.chains.deployContract(chain.chainId, key, {
      abi: JSON.parse(contract.abi) as unknown[],
      bytecode: contract.bytecode,
      args: body.constructorArgs ?? [],
    })
  } catch (error) {
    const message = firstLine(error)
    if (error instanceof ContractArgumentsError)
      throw badRequest(`the constructor arguments do not fit: ${message}`, [{ path: '/constructorArgs', message }])
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
    deployed_at: deps.clock.now(),
    deployed_by: actorOf(caller),
  }
  await store.write((tx) => deployments.insert(tx, row))
  return toDeployment(row)
}

/** The wallet named, or the organization's default; 400 when there is none. */
async function deployingWallet(
  deps: WalletServiceDeps,
  caller: Principal,
  walletId: string | undefined,
): Promise<WalletRow> {
  const wallet = walletId
    ? await wallets.byId(deps.store, caller.organizationId, walletId)
    : (await wallets.list(deps.store, caller.organizationId, 100, 0)).find((w) => w.is_default === 1)
  if (!wallet)
    throw badRequest(
      walletId ? 'no such wallet in this organization' : 'the organization has no wallet: create one first',
      [{ path: '/walletId', message: 'unknown wallet' }],
    )
  return wallet
}
