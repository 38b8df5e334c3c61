/** EVM chains and x402 payments: the chains, the relayer or facilitator that settles, and price and time limits. */
import type { ChainConfig } from '../ports/chain.ts'
import { type ConfigEntryOf, nullable, optionalHttpUrl, int, chainList } from './parsers.ts'

export interface ChainsConfig {
  chains: ChainConfig[]
  x402RelayerKey: string | null
  x402FacilitatorUrl: string | null
  x402SettleTimeoutMs: number
  x402MaxImportPrice: number
  anvilPath: string | null
}

export const CHAINS_ENTRIES: readonly ConfigEntryOf<ChainsConfig>[] = [
  {
    env: 'AUTOMATON_ANVIL_PATH',
    key: 'anvilPath',
    default: '',
    description:
      'The anvil program `automaton devnet` runs; empty: the one beside the automaton binary, in the installed npm package, or on `PATH`. See wallets.md.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_CHAINS',
    key: 'chains',
    default: '',
    description:
      'EVM chains, a JSON array of `{ chainId, name, rpcUrl, network }` (what `automaton devnet` prints fits); empty: none. Wallet balances, contract deployments and x402 use them.',
    parse: chainList,
  },
  {
    env: 'AUTOMATON_X402_RELAYER_KEY',
    key: 'x402RelayerKey',
    default: '',
    description:
      'The private key (0x…) that settles x402 payments on chain, paying their gas; empty: paid workflows answer 503 after verifying a payment, settling nothing. See x402.md.',
    parse: nullable,
  },
  {
    env: 'AUTOMATON_X402_FACILITATOR_URL',
    key: 'x402FacilitatorUrl',
    default: '',
    description:
      'An external x402 facilitator (`/verify`, `/settle`, as the reference facilitator serves them) that verifies and settles payments instead of the relayer; empty: the relayer settles. See x402.md.',
    parse: optionalHttpUrl,
  },
  {
    env: 'AUTOMATON_X402_SETTLE_TIMEOUT_MS',
    key: 'x402SettleTimeoutMs',
    default: '20000',
    description:
      'How long a paid request waits for its settlement to be mined before answering 409 "not confirmed yet" (the same payment sent again answers its result); unfinished settlements are reconciled from the chain.',
    parse: int(100),
  },
  {
    env: 'AUTOMATON_X402_MAX_IMPORT_PRICE',
    key: 'x402MaxImportPrice',
    default: '1000000',
    description:
      "The most `POST /v1/x402-endpoints/import` pays for its one call, in the token's smallest unit (1,000,000 is 1 USDC).",
    parse: int(0),
  },
]
