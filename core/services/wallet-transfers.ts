/** Spending from a wallet: a transfer of the native token or an ERC-20, answered once mined. */
import { badRequest, notFound, unavailable } from '../errors.ts'
import type { Chains, ChainConfig } from '../ports/chain.ts'
import { wallets } from '../store/wallets.ts'
import type { Principal } from './auth.ts'
import type { Transfer, TransferBody, WalletServiceDeps } from './wallets.ts'

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

/** The configured chain of that id; 400 naming the configured ones otherwise. */
export function configuredChain(chains: Chains, chainId: number): ChainConfig {
  const chain = chains.get(chainId)
  if (!chain) {
    const known = chains.list().map((c) => c.chainId)
    throw badRequest(
      `chain ${chainId} is not configured${known.length ? ` (configured: ${known.join(', ')})` : ': the operator sets AUTOMATON_CHAINS'}`,
      [{ path: '/chainId', message: 'not configured' }],
    )
  }
  return chain
}

/** The first line of what a chain answered, for an error message. */
export const firstLine = (error: unknown) => (error instanceof Error ? error.message.split('\n')[0] : String(error))

/** What is wrong with a transfer's body, one detail a field. */
function transferProblems(body: TransferBody) {
  return [
    ...(body.token === 'native' || ADDRESS.test(body.token)
      ? []
      : [{ path: '/token', message: 'an ERC-20 address (0x…) or native' }]),
    ...(ADDRESS.test(body.to) ? [] : [{ path: '/to', message: 'an address (0x…)' }]),
    ...(/^[0-9]{1,78}$/.test(body.amount) && BigInt(body.amount) > 0n
      ? []
      : [{ path: '/amount', message: "a positive integer in the token's smallest unit" }]),
  ]
}

/** `POST /v1/wallets/{id}/transfer`: sends the native token or an ERC-20 from the wallet; answers once mined. */
export async function transferFrom(
  deps: WalletServiceDeps,
  caller: Principal,
  walletId: string,
  body: TransferBody,
): Promise<Transfer> {
  const wallet = await wallets.byId(deps.store, caller.organizationId, walletId)
  if (!wallet) throw notFound('wallet')
  const chain = configuredChain(deps.chains, body.chainId)
  const problems = transferProblems(body)
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
    const message = firstLine(error)
    if (/insufficient funds|exceeds the balance|transfer amount exceeds|reverted/i.test(message)) {
      throw badRequest(`the wallet ${wallet.address} cannot make this transfer on chain ${chain.chainId}: ${message}`, [
        { path: '/amount', message: 'insufficient funds' },
      ])
    }
    throw unavailable(`the transfer on chain ${chain.chainId} failed: ${message}`)
  }
}
