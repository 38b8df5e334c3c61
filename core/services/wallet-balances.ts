/** Reading a wallet: its balance of each configured chain's native token and of the tokens asked for. */
import { badRequest, notFound } from '../errors.ts'
import { wallets } from '../store/wallets.ts'
import type { Principal } from './auth.ts'
import { toWallet } from './wallet-records.ts'
import type { WalletBalances, WalletServiceDeps, WalletWithBalances } from './wallets.ts'

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

/** A wallet with its balance of each configured chain's native token and of the tokens asked for. */
export async function walletWithBalances(
  deps: WalletServiceDeps,
  caller: Principal,
  id: string,
  tokens: readonly string[] = [],
): Promise<WalletWithBalances> {
  const row = await wallets.byId(deps.store, caller.organizationId, id)
  if (!row) throw notFound('wallet')
  for (const [i, token] of tokens.entries()) {
    if (!ADDRESS.test(token))
      throw badRequest('tokens must be contract addresses', [
        { path: `/tokens/${i}`, in: 'query', message: 'not an address' },
      ])
  }
  const balances = await Promise.all(deps.chains.list().map((chain) => balancesOn(deps, chain, row.address, tokens)))
  return { ...toWallet(row), balances }
}

/** One chain's balances of an address; a chain that cannot be read says so instead of failing the answer. */
async function balancesOn(
  deps: WalletServiceDeps,
  chain: { chainId: number; network: string },
  owner: string,
  tokens: readonly string[],
): Promise<WalletBalances> {
  try {
    const native = await deps.chains.nativeBalance(chain.chainId, owner)
    const held = await Promise.all(
      tokens.map(async (token) => ({
        token,
        balance: String(await deps.chains.tokenBalance(chain.chainId, token, owner)),
      })),
    )
    return { chainId: chain.chainId, network: chain.network, native: String(native), tokens: held, error: '' }
  } catch (error) {
    return {
      chainId: chain.chainId,
      network: chain.network,
      native: '',
      tokens: [],
      error: `the chain could not be read: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    }
  }
}
