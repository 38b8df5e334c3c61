/** What the viem chain port shares: the configured chains, one public client each, wallet clients per key. */
import {
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  type HttpTransport,
  http,
  isAddress,
  type PublicClient,
  type WalletClient,
} from 'viem'
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import type { ChainConfig } from '../../core/ports/chain.ts'

/** The configured chains and their clients, shared by reading, sending and authorizations. */
export interface ChainClients {
  readonly configs: readonly ChainConfig[]
  readonly byId: ReadonlyMap<number, ChainConfig>
  /** The configuration of a chain; throws when it is not configured. */
  config(chainId: number): ChainConfig
  /** The public client of a configured chain. */
  publicOf(chainId: number): PublicClient<HttpTransport, Chain>
  /** A wallet client for a key on a configured chain (throws when the chain is not configured). */
  walletOf(
    chainId: number,
    privateKey: string,
  ): { account: PrivateKeyAccount; chain: Chain; wallet: WalletClient<HttpTransport, Chain, PrivateKeyAccount> }
}

/** The address, checked; throws naming the value otherwise. */
export const address = (value: string): Hex => {
  if (!isAddress(value)) throw new Error(`not an address: ${value}`)
  return value as Hex
}

/** The viem chain of a configuration. */
export const viemChain = (c: ChainConfig) =>
  defineChain({
    id: c.chainId,
    name: c.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [c.rpcUrl] } },
  })

export function createChainClients(configs: readonly ChainConfig[]): ChainClients {
  const byId = new Map(configs.map((c) => [c.chainId, c]))
  const publics = new Map(
    configs.map((c) => [
      c.chainId,
      createPublicClient({ chain: viemChain(c), transport: http(c.rpcUrl), pollingInterval: 500 }),
    ]),
  )
  /** The configuration of a chain; throws when it is not configured. */
  const config = (chainId: number) => {
    const c = byId.get(chainId)
    if (!c) throw new Error(`chain ${chainId} is not configured (AUTOMATON_CHAINS)`)
    return c
  }
  /** The public client of a configured chain. */
  const publicOf = (chainId: number) => {
    config(chainId)
    return publics.get(chainId)!
  }
  /** A wallet client for a key on a configured chain. */
  const walletOf = (chainId: number, privateKey: string) => {
    const c = config(chainId)
    const account = privateKeyToAccount(privateKey as Hex)
    return {
      account,
      chain: viemChain(c),
      wallet: createWalletClient({ account, chain: viemChain(c), transport: http(c.rpcUrl) }),
    }
  }
  return { configs, byId, config, publicOf, walletOf }
}
