/**
 * x402's EIP-3009 signatures without a chain: the digest built by hand from EIP-712 (type hash,
 * domain separator, struct hash) is what the chain port signs and verifies; a pinned vector
 * catches any change in the domain or the type; every field of the authorization is covered by
 * the signature; and payment headers decode (v1 and v2) or are refused with the reference codes.
 */
import { describe, expect, it } from 'bun:test'
import { concatHex, encodeAbiParameters, type Hex, keccak256, toHex } from 'viem'
import { privateKeyToAccount, sign } from 'viem/accounts'
import { createViemChains } from '../../../adapters/evm/chains.ts'
import { TEST_USDC_SOURCE } from '../../../adapters/evm/test-usdc.ts'
import { encodePaymentHeader, paymentOf } from '../../../core/domain/x402.ts'

// The first well-known development key (anvil, hardhat): never holds anything of value.
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as Hex
const CHAIN_ID = 84532
const TOKEN = { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USD Coin', version: '2' }
const AUTHORIZATION = {
  from: privateKeyToAccount(KEY).address,
  to: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
  value: '10000',
  validAfter: '1740672089',
  validBefore: '1740672154',
  nonce: '0xf3746613c2d920b5fdabc0856f2aeb2d4f88ee6037b8cc5d04a71a4462f13480',
}
// Pinned once from the hand-built digest below; EIP-712 signatures are deterministic (RFC 6979).
const PINNED =
  '0xd0145b401b4458000b68c1272f6ce64653807f3a057afbe7350c5b7365693f8e5eee7fa6cef89240ed101bdc93f7eb3dc118796c6698dc10f30f3283b0eff6fc1b'

const TYPE =
  'TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)'

function digestByHand(chainId: number, token: typeof TOKEN, a: typeof AUTHORIZATION): Hex {
  const domainType = keccak256(
    toHex('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'),
  )
  const domain = keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }],
      [
        domainType,
        keccak256(toHex(token.name)),
        keccak256(toHex(token.version)),
        BigInt(chainId),
        token.address as Hex,
      ],
    ),
  )
  const struct = keccak256(
    encodeAbiParameters(
      [
        { type: 'bytes32' },
        { type: 'address' },
        { type: 'address' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'bytes32' },
      ],
      [
        keccak256(toHex(TYPE)),
        a.from as Hex,
        a.to as Hex,
        BigInt(a.value),
        BigInt(a.validAfter),
        BigInt(a.validBefore),
        a.nonce as Hex,
      ],
    ),
  )
  return keccak256(concatHex(['0x1901', domain, struct]))
}

describe('x402 signature vectors (no chain)', () => {
  const chains = createViemChains([])

  it('signs the EIP-712 digest built by hand, and the token signs the same type', async () => {
    const expected = await sign({ hash: digestByHand(CHAIN_ID, TOKEN, AUTHORIZATION), privateKey: KEY, to: 'hex' })
    const signature = await chains.signAuthorization(CHAIN_ID, KEY, TOKEN, AUTHORIZATION)
    expect(signature).toBe(expected)
    expect(await chains.verifyAuthorization(CHAIN_ID, TOKEN, AUTHORIZATION, signature)).toBe(true)
    // The devnet's token hashes the very same type string.
    expect(TEST_USDC_SOURCE).toContain(`"${TYPE}"`)
  })

  it('matches the pinned vector', async () => {
    expect(await chains.signAuthorization(CHAIN_ID, KEY, TOKEN, AUTHORIZATION)).toBe(PINNED)
  })

  it('is broken by a change to any field, the chain, the token or its domain', async () => {
    const signature = await chains.signAuthorization(CHAIN_ID, KEY, TOKEN, AUTHORIZATION)
    const changed: Array<[string, Partial<typeof AUTHORIZATION>]> = [
      ['from', { from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }],
      ['to', { to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' }],
      ['value', { value: '10001' }],
      ['validAfter', { validAfter: '1740672088' }],
      ['validBefore', { validBefore: '1740672155' }],
      ['nonce', { nonce: `0x${'00'.repeat(32)}` }],
    ]
    for (const [, patch] of changed)
      expect(await chains.verifyAuthorization(CHAIN_ID, TOKEN, { ...AUTHORIZATION, ...patch }, signature)).toBe(false)
    expect(await chains.verifyAuthorization(CHAIN_ID + 1, TOKEN, AUTHORIZATION, signature)).toBe(false)
    expect(
      await chains.verifyAuthorization(
        CHAIN_ID,
        { ...TOKEN, address: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
        AUTHORIZATION,
        signature,
      ),
    ).toBe(false)
    expect(await chains.verifyAuthorization(CHAIN_ID, { ...TOKEN, version: '1' }, AUTHORIZATION, signature)).toBe(false)
    expect(await chains.verifyAuthorization(CHAIN_ID, { ...TOKEN, name: 'USDC' }, AUTHORIZATION, signature)).toBe(false)
    // Malformed signatures and addresses are refused, not thrown.
    expect(await chains.verifyAuthorization(CHAIN_ID, TOKEN, AUTHORIZATION, '0x1234')).toBe(false)
    expect(
      await chains.verifyAuthorization(CHAIN_ID, TOKEN, { ...AUTHORIZATION, to: 'not an address' }, signature),
    ).toBe(false)
  })
})

describe('x402 payment headers', () => {
  const payload = { signature: '0xabc', authorization: AUTHORIZATION }
  const headers = (h: Record<string, string>) => new Headers(h)

  it('reads v1 from X-PAYMENT and v2 from PAYMENT-SIGNATURE', () => {
    expect(
      paymentOf(
        headers({
          'x-payment': encodePaymentHeader({ x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload }),
        }),
      ),
    ).toEqual({
      version: 1,
      payment: { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload },
    })
    expect(
      paymentOf(
        headers({
          'payment-signature': encodePaymentHeader({
            x402Version: 2,
            accepted: { scheme: 'exact', network: 'eip155:84532' },
            payload,
          }),
        }),
      ),
    ).toEqual({
      version: 2,
      payment: { x402Version: 2, scheme: 'exact', network: 'eip155:84532', payload },
    })
    expect(paymentOf(headers({}))).toBeNull()
  })

  it('refuses what does not decode, a version in the wrong header, and missing fields', () => {
    expect(paymentOf(headers({ 'x-payment': 'not base64 json' }))).toEqual({ error: 'invalid_payload' })
    expect(
      paymentOf(
        headers({ 'x-payment': encodePaymentHeader({ x402Version: 2, scheme: 'exact', network: 'x', payload }) }),
      ),
    ).toEqual({ error: 'invalid_x402_version' })
    expect(
      paymentOf(
        headers({
          'x-payment': encodePaymentHeader({
            x402Version: 1,
            scheme: 'exact',
            network: 'x',
            payload: { authorization: AUTHORIZATION },
          }),
        }),
      ),
    ).toEqual({ error: 'invalid_payload' })
    for (const field of Object.keys(AUTHORIZATION)) {
      const { [field as keyof typeof AUTHORIZATION]: _, ...rest } = AUTHORIZATION
      expect(
        paymentOf(
          headers({
            'x-payment': encodePaymentHeader({
              x402Version: 1,
              scheme: 'exact',
              network: 'x',
              payload: { signature: '0x', authorization: rest },
            }),
          }),
        ),
      ).toEqual({ error: 'invalid_payload' })
    }
  })
})
