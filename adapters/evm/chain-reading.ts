/** Reading chains: configurations, keys and addresses, balances, code, a transaction's outcome. */
import { erc20Abi, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { Chains } from '../../core/ports/chain.ts'
import { address, type ChainClients } from './chain-clients.ts'

type Reading = Pick<
  Chains,
  'list' | 'get' | 'addressOf' | 'newPrivateKey' | 'nativeBalance' | 'tokenBalance' | 'code' | 'transactionOutcome'
>

export function chainReading({ configs, byId, publicOf }: ChainClients): Reading {
  return {
    list: () => configs,
    get: (chainId) => byId.get(chainId),
    addressOf: (privateKey) => privateKeyToAccount(privateKey as Hex).address,
    newPrivateKey: () => generatePrivateKey(),
    nativeBalance: (chainId, owner) => publicOf(chainId).getBalance({ address: address(owner) }),
    tokenBalance: (chainId, token, owner) =>
      publicOf(chainId).readContract({
        address: address(token),
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [address(owner)],
      }),
    async code(chainId, at) {
      return (await publicOf(chainId).getCode({ address: address(at) })) ?? '0x'
    },
    async transactionOutcome(chainId, hash, timeoutMs) {
      const client = publicOf(chainId)
      try {
        const receipt =
          timeoutMs > 0
            ? await client.waitForTransactionReceipt({ hash: hash as Hex, timeout: timeoutMs })
            : await client.getTransactionReceipt({ hash: hash as Hex })
        return receipt.status === 'success' ? 'success' : 'reverted'
      } catch (error) {
        const name = (error as Error).name
        if (
          name === 'WaitForTransactionReceiptTimeoutError' ||
          name === 'TransactionReceiptNotFoundError' ||
          name === 'TransactionNotFoundError'
        )
          return 'pending'
        throw error
      }
    },
  }
}
