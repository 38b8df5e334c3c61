/**
 * The x402 `exact` scheme on EVM chains: an EIP-3009 `transferWithAuthorization` signed by the
 * payer (EIP-712, for the token's domain) and submitted by the operator's relayer, over the chain
 * port. Networks are `eip155:<chainId>`; the token is USDC-like (name `USD Coin`, version `2`,
 * six decimals), as the test USDC of the devnet and the USDC of public chains are.
 */
import type { ChainConfig, Chains } from '../../core/ports/chain.ts'
import type { PaymentScheme, SigningDomain } from '../../core/ports/payment-scheme.ts'

/** What the test USDC and the USDC of public chains sign with. */
const SIGNING_DOMAIN: SigningDomain = { name: 'USD Coin', version: '2' }
/** An authorization must stay valid this long beyond now, so that settlement can land. */
const VALID_BEFORE_MARGIN_S = 6
/** The relayer's nonce went to another transaction (another process using the same relayer). */
const REPLACED = /nonce too low|nonce has already been used|replacement transaction underpriced/i

const caip2 = (network: ChainConfig) => `eip155:${network.chainId}`
const hex = (bytes: Uint8Array) => `0x${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`

export function evmPaymentScheme(chains: Chains): PaymentScheme {
  return {
    networks: () => chains.list(),
    network: (chainId) => chains.get(chainId),
    networkNamed: (name) => chains.list().find((c) => c.network === name || caip2(c) === name),
    caip2,
    signingDomain: () => SIGNING_DOMAIN,
    assetOf: (extra) => ({ symbol: extra.name === SIGNING_DOMAIN.name ? 'USDC' : '', decimals: 6 }),

    async pay(chainId, privateKey, from, offer, nonce, nowMs) {
      const now = Math.floor(nowMs / 1000)
      const authorization = {
        from,
        to: offer.payTo,
        value: offer.amount,
        validAfter: String(now - 60),
        validBefore: String(now + Math.max(60, offer.maxTimeoutSeconds)),
        nonce: hex(nonce),
      }
      const signature = await chains.signAuthorization(
        chainId,
        privateKey,
        {
          address: offer.asset,
          name: offer.extra.name ?? SIGNING_DOMAIN.name,
          version: offer.extra.version ?? SIGNING_DOMAIN.version,
        },
        authorization,
      )
      return { signature, authorization }
    },

    async verify(chainId, r, p, nowMs) {
      if (p.scheme !== 'exact') return 'invalid_scheme'
      if (p.network !== r.network && p.network !== r.caip2) return 'invalid_network'
      const a = p.payload.authorization
      if (
        !/^0x[0-9a-fA-F]{64}$/.test(a.nonce) ||
        ![a.value, a.validAfter, a.validBefore].every((n) => /^\d{1,78}$/.test(n))
      )
        return 'invalid_payload'
      const ok = await chains.verifyAuthorization(
        chainId,
        { address: r.asset, ...SIGNING_DOMAIN },
        a,
        p.payload.signature,
      )
      if (!ok) return 'invalid_exact_evm_payload_signature'
      if (a.to.toLowerCase() !== r.payTo.toLowerCase()) return 'invalid_exact_evm_payload_recipient_mismatch'
      const now = Math.floor(nowMs / 1000)
      if (BigInt(a.validBefore) < BigInt(now + VALID_BEFORE_MARGIN_S))
        return 'invalid_exact_evm_payload_authorization_valid_before'
      if (BigInt(a.validAfter) > BigInt(now)) return 'invalid_exact_evm_payload_authorization_valid_after'
      if (BigInt(a.value) !== BigInt(r.amount)) return 'invalid_exact_evm_payload_authorization_value'
      return null
    },

    settle: (chainId, relayerKey, asset, authorization, signature, beforeBroadcast) =>
      chains.submitAuthorization(chainId, relayerKey, asset, authorization, signature, beforeBroadcast),

    async rebroadcast(chainId, raw) {
      try {
        await chains.broadcast(chainId, raw)
        return 'sent'
      } catch (error) {
        if (REPLACED.test((error as Error).message)) return 'replaced'
        throw error
      }
    },

    outcome: (chainId, transaction, timeoutMs) => chains.transactionOutcome(chainId, transaction, timeoutMs),
    used: (chainId, asset, payer, nonce) => chains.authorizationUse(chainId, asset, payer, nonce),
  }
}
