/**
 * The x402 `exact` scheme on one family of networks, as a port: which configured networks it pays
 * on and how x402 names them (v1 names, CAIP-2 ids), what a requirement asks the payer to sign
 * over (its `extra`), and the payment itself: built and signed by a buyer's wallet, verified for a
 * seller in the reference facilitator's order, settled by the operator's relayer, and found again
 * on the network after a timeout or a crash. The EVM adapter (EIP-3009 `transferWithAuthorization`
 * over the chain port) is adapters/evm/payment-scheme.ts; another family (x402 v2's Solana) is
 * another adapter of this port, not a change to the x402 services.
 *
 * It holds no keys (the wallet's or the relayer's key comes with the call) and speaks no HTTP: the
 * wire format (402 bodies, payment headers) is core/domain/x402.ts, an external facilitator is
 * core/ports/facilitator.ts. Networks are the configured ones (AUTOMATON_CHAINS), by their
 * `chainId`, as workflows' `x402Config` and the payments table name them.
 */
import type { ExactAuthorization, PaymentPayload, Requirement, X402Error } from '../domain/x402.ts'
import type { ChainConfig } from './chain.ts'

/** What a requirement's `extra` carries: the asset's signing domain (EVM: the token's EIP-712 name and version). */
export interface SigningDomain {
  name: string
  version: string
}

/** What a buyer pays: the offer a 402 made, as far as the payment is concerned. */
export interface PaymentOffer {
  asset: string
  payTo: string
  amount: string
  maxTimeoutSeconds: number
  /** The offer's `extra` as the seller sent it (a signing domain it names wins over the default). */
  extra: Partial<SigningDomain>
}

export interface PaymentScheme {
  /** The configured networks this installation pays and is paid on. */
  networks(): readonly ChainConfig[]
  /** A configured network by its `chainId`. */
  network(chainId: number): ChainConfig | undefined
  /** The configured network an x402 `network` names: its v1 name (`base-sepolia`) or its CAIP-2 id. */
  networkNamed(name: string): ChainConfig | undefined
  /** A configured network's CAIP-2 id, as x402 v2 names it (`eip155:84532`). */
  caip2(network: ChainConfig): string
  /** The `extra` of a requirement this installation asks to be paid with. */
  signingDomain(): SigningDomain
  /** The symbol and decimals of an offered asset, as far as the offer's `extra` tells them. */
  assetOf(extra: Partial<SigningDomain>): { symbol: string; decimals: number }

  /**
   * A buyer's payment for an offer, signed with the wallet's key: valid from a minute ago for the
   * offer's timeout (at least a minute), with the given 32-byte nonce (the same nonce again is
   * the same payment, which the network accepts once).
   */
  pay(
    chainId: number,
    privateKey: string,
    from: string,
    offer: PaymentOffer,
    nonce: Uint8Array,
    nowMs: number,
  ): Promise<PaymentPayload['payload']>
  /** Checks a payment against a requirement in the reference facilitator's order: the first problem's code, or null. */
  verify(chainId: number, requirement: Requirement, payment: PaymentPayload, nowMs: number): Promise<X402Error | null>
  /**
   * Settles a verified payment from the relayer's key: the transaction is signed first and
   * `beforeBroadcast` stores its hash and raw form, so a process that dies after the broadcast
   * still knows what it sent. Answers the transaction's hash once broadcast (not confirmed).
   */
  settle(
    chainId: number,
    relayerKey: string,
    asset: string,
    authorization: ExactAuthorization,
    signature: string,
    beforeBroadcast: (hash: string, raw: string) => Promise<void>,
  ): Promise<string>
  /**
   * Broadcasts a settlement's signed transaction again: `replaced` when the relayer's turn went to
   * another transaction, so this one can never be confirmed (settle anew, unless it is used).
   */
  rebroadcast(chainId: number, raw: string): Promise<'sent' | 'replaced'>
  /** A settlement's outcome, waiting up to `timeoutMs` for it: `pending` when it did not come (or is unknown). */
  outcome(chainId: number, transaction: string, timeoutMs: number): Promise<'success' | 'reverted' | 'pending'>
  /**
   * Whether the network has used the payer's nonce for the asset: null when not, else the
   * transaction that used it when it can still be found (null `transaction` past that).
   */
  used(chainId: number, asset: string, payer: string, nonce: string): Promise<{ transaction: string | null } | null>
}
