/** Sending to chains: deploying a contract, transferring a token, broadcasting a signed transaction. */
import { type Abi, encodeDeployData, erc20Abi, type Hex } from 'viem'
import { type Chains, ContractArgumentsError } from '../../core/ports/chain.ts'
import { address, type ChainClients } from './chain-clients.ts'

export function chainSending({
  publicOf,
  walletOf,
}: ChainClients): Pick<Chains, 'deployContract' | 'transfer' | 'broadcast'> {
  return {
    async deployContract(chainId, privateKey, contract) {
      const { wallet } = walletOf(chainId, privateKey)
      try {
        encodeDeployData({
          abi: contract.abi as Abi,
          bytecode: contract.bytecode as Hex,
          args: (contract.args ?? []) as never,
        })
      } catch (error) {
        throw new ContractArgumentsError((error as Error).message.split('\n')[0])
      }
      const hash = await wallet.deployContract({
        abi: contract.abi as Abi,
        bytecode: contract.bytecode as Hex,
        args: (contract.args ?? []) as never,
      })
      const receipt = await publicOf(chainId).waitForTransactionReceipt({ hash })
      if (receipt.status !== 'success' || !receipt.contractAddress)
        throw new Error(`the deployment failed on chain ${chainId} (transaction ${hash})`)
      return { address: receipt.contractAddress, transactionHash: hash }
    },
    async transfer(chainId, privateKey, t) {
      const { wallet, chain } = walletOf(chainId, privateKey)
      const hash =
        t.token === 'native'
          ? await wallet.sendTransaction({ to: address(t.to), value: t.amount, chain })
          : await wallet.writeContract({
              address: address(t.token),
              abi: erc20Abi,
              functionName: 'transfer',
              args: [address(t.to), t.amount],
              chain,
            })
      const receipt = await publicOf(chainId).waitForTransactionReceipt({ hash })
      if (receipt.status !== 'success')
        throw new Error(`the transfer reverted on chain ${chainId} (transaction ${hash})`)
      return hash
    },
    async broadcast(chainId, raw) {
      try {
        await publicOf(chainId).sendRawTransaction({ serializedTransaction: raw as Hex })
      } catch (error) {
        if (/already known|already imported|known transaction/i.test((error as Error).message)) return
        throw error
      }
    },
  }
}
