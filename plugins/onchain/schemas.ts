/** Shapes shared by the on-chain triggers: addresses, hashes, amounts, transfers. */
import { Type } from '../../core/plugin/sdk.ts'

export const Address = Type.String({
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'an EVM address (0x and 40 hex digits)',
})
export const TxHash = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'a transaction hash' })
export const Topic = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'a 32-byte log topic' })
export const ChainId = Type.Integer({
  minimum: 1,
  description: 'the EVM chain id (1 Ethereum, 8453 Base, 42161 Arbitrum …)',
})
export const Amount = Type.String({
  pattern: '^[0-9]{1,78}$',
  description: 'an amount in the smallest unit of the token',
})
export const SolanaAddress = Type.String({
  pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
  description: 'a Solana address (base58)',
})

export const TAGS = ['generic', 'onchain']

/** Addresses compare without regard to the checksum's letter case. */
export const sameAddress = (a: string | undefined, b: string | undefined) =>
  !!a && !!b && a.toLowerCase() === b.toLowerCase()

/** Whether an amount (smallest unit, decimal string) reaches a minimum; no minimum passes. */
export const atLeast = (amount: string, minimum: string | undefined) =>
  minimum === undefined || BigInt(amount) >= BigInt(minimum)

/** An ERC-20 transfer, as the erc20-* triggers deliver it. */
export const Erc20Transfer = Type.Object({
  chainId: ChainId,
  tokenAddress: Address,
  tokenSymbol: Type.Optional(Type.String()),
  tokenDecimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
  from: Address,
  to: Address,
  amount: Amount,
  transactionHash: TxHash,
  blockNumber: Type.Integer({ minimum: 0 }),
  logIndex: Type.Integer({ minimum: 0 }),
})

/** A native (ETH) transfer, as the eth-* triggers deliver it. */
export const NativeTransfer = Type.Object({
  chainId: ChainId,
  from: Address,
  to: Address,
  value: Amount,
  transactionHash: TxHash,
  blockNumber: Type.Integer({ minimum: 0 }),
})
