/** A payer of x402 payments on the devnet: signs EIP-3009 authorizations and encodes the headers. */
import { createPublicClient, type Hex, http, parseAbi } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type Devnet, startDevnet } from '../../adapters/evm/devnet.ts'
import type { SolidityCompiler } from '../../core/ports/compiler.ts'
import { encodePaymentHeader } from '../../core/domain/x402.ts'

const TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

export const randomNonce = () =>
  `0x${[...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, '0')).join('')}` as Hex

export type SignOverrides = Partial<{
  to: string
  value: string
  validAfter: bigint
  validBefore: bigint
  nonce: Hex
  chainId: number
  token: string
}>

export function x402Payer(devnet: Devnet, privateKey: string, defaults: { to: string; value: string }) {
  const account = privateKeyToAccount(privateKey as Hex)
  const client = createPublicClient({ transport: http(devnet.rpcUrl) })
  return {
    account,
    async sign(overrides: SignOverrides = {}) {
      const now = BigInt(Math.floor(Date.now() / 1000))
      const message = {
        from: account.address,
        to: (overrides.to ?? defaults.to) as Hex,
        value: BigInt(overrides.value ?? defaults.value),
        validAfter: overrides.validAfter ?? now - 60n,
        validBefore: overrides.validBefore ?? now + 300n,
        nonce: overrides.nonce ?? randomNonce(),
      }
      const signature = await account.signTypedData({
        domain: {
          name: 'USD Coin',
          version: '2',
          chainId: overrides.chainId ?? devnet.chainId,
          verifyingContract: (overrides.token ?? devnet.token) as Hex,
        },
        types: TYPES,
        primaryType: 'TransferWithAuthorization',
        message,
      })
      const authorization = {
        ...message,
        value: message.value.toString(),
        validAfter: message.validAfter.toString(),
        validBefore: message.validBefore.toString(),
      }
      return { signature, authorization }
    },
    v1: (p: { signature: string; authorization: unknown }, network = devnet.network) =>
      encodePaymentHeader({ x402Version: 1, scheme: 'exact', network, payload: p }),
    v2: (p: { signature: string; authorization: unknown }) =>
      encodePaymentHeader({
        x402Version: 2,
        accepted: { scheme: 'exact', network: `eip155:${devnet.chainId}` },
        payload: p,
      }),
    balanceOf: (address: string) =>
      client.readContract({
        address: devnet.token as Hex,
        abi: parseAbi(['function balanceOf(address) view returns (uint256)']),
        functionName: 'balanceOf',
        args: [address as Hex],
      }),
    /** A JSON-RPC call to the devnet (evm_mine, evm_setAutomine, anvil_dropTransaction …). */
    rpc: (method: string, params: unknown[] = []) =>
      fetch(devnet.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      }).then((r) => r.json() as Promise<{ result?: unknown; error?: { message: string } }>),
  }
}

/** The devnet on a free port, for a test (or a bench) of its own. */
export async function startTestDevnet(compiler: SolidityCompiler): Promise<Devnet> {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() })
  const port = probe.port
  probe.stop(true)
  return startDevnet({ compiler, port })
}

/** AUTOMATON_CHAINS for the devnet. */
export const chainsOf = (devnet: Devnet) =>
  JSON.stringify([{ chainId: devnet.chainId, name: 'devnet', rpcUrl: devnet.rpcUrl, network: devnet.network }])
