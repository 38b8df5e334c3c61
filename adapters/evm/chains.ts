/**
 * The chain port over viem: one public client per configured chain, wallet clients per call.
 * Reading (chain-reading.ts), sending (chain-sending.ts) and EIP-3009 authorizations
 * (chain-authorizations.ts) share the clients of chain-clients.ts.
 */
import type { ChainConfig, Chains } from '../../core/ports/chain.ts'
import { chainAuthorizations } from './chain-authorizations.ts'
import { createChainClients } from './chain-clients.ts'
import { chainReading } from './chain-reading.ts'
import { chainSending } from './chain-sending.ts'

export function createViemChains(configs: readonly ChainConfig[]): Chains {
  const clients = createChainClients(configs)
  return { ...chainReading(clients), ...chainSending(clients), ...chainAuthorizations(clients) }
}
