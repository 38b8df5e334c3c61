/**
 * A scripted x402 facilitator of our own, serving the reference facilitator's `/verify` and
 * `/settle` over HTTP and settling for real on the devnet with its own key. Its quirks are
 * switchable: refuse every payment at `/verify`, or settle and then never answer `/settle`
 * (as a facilitator behind a slow proxy does).
 */
import { createPublicClient, createWalletClient, defineChain, type Hex, http, parseAbi, parseSignature } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Devnet } from '../../adapters/evm/devnet.ts'

export interface ScriptedFacilitator {
  readonly url: string
  readonly calls: Array<{ path: string; body: any }>
  mode: 'normal' | 'refuse' | 'settle-then-hang'
  stop(): void
}

export function startFacilitator(devnet: Devnet, privateKey: string): ScriptedFacilitator {
  const chain = defineChain({
    id: devnet.chainId,
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [devnet.rpcUrl] } },
  })
  const account = privateKeyToAccount(privateKey as Hex)
  const wallet = createWalletClient({ account, chain, transport: http(devnet.rpcUrl) })
  const client = createPublicClient({ chain, transport: http(devnet.rpcUrl) })
  const abi = parseAbi([
    'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  ])
  const hung: Array<() => void> = []
  const state: ScriptedFacilitator = {
    url: '',
    calls: [],
    mode: 'normal',
    stop: () => {
      for (const release of hung) release()
      server.stop(true)
    },
  }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const path = new URL(request.url).pathname
      const body = (await request.json()) as any
      state.calls.push({ path, body })
      const payer = body.paymentPayload?.payload?.authorization?.from
      if (path === '/verify') {
        return state.mode === 'refuse'
          ? Response.json({ isValid: false, invalidReason: 'insufficient_funds', payer })
          : Response.json({ isValid: true, payer })
      }
      if (path === '/settle') {
        const a = body.paymentPayload.payload.authorization
        const { r, s, v, yParity } = parseSignature(body.paymentPayload.payload.signature as Hex)
        const hash = await wallet.writeContract({
          address: body.paymentRequirements.asset as Hex,
          abi,
          functionName: 'transferWithAuthorization',
          args: [
            a.from,
            a.to,
            BigInt(a.value),
            BigInt(a.validAfter),
            BigInt(a.validBefore),
            a.nonce,
            Number(v ?? BigInt(27 + (yParity ?? 0))),
            r,
            s,
          ],
        })
        const receipt = await client.waitForTransactionReceipt({ hash })
        if (state.mode === 'settle-then-hang') await new Promise<void>((resolve) => hung.push(resolve))
        return receipt.status === 'success'
          ? Response.json({ success: true, transaction: hash, network: body.paymentRequirements.network, payer })
          : Response.json({
              success: false,
              errorReason: 'invalid_transaction_state',
              transaction: hash,
              network: body.paymentRequirements.network,
              payer,
            })
      }
      return new Response('not found', { status: 404 })
    },
  })
  return Object.assign(state, { url: `http://127.0.0.1:${server.port}` })
}
