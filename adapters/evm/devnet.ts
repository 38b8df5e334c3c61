/**
 * `automaton devnet`: a local EVM (anvil, from the @foundry-rs/anvil npm package) with the test
 * USDC (EIP-3009) deployed and its accounts funded, described as one JSON object that
 * AUTOMATON_CHAINS and wallet import take.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { createPublicClient, createWalletClient, defineChain, type Hex, http, parseAbi } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { SolidityCompiler } from '../../core/ports/compiler.ts'
import { TEST_USDC_SOURCE } from './test-usdc.ts'

/** anvil's well-known test mnemonic accounts (the first four; anvil funds them with ether). */
const ANVIL_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
] as const

export interface Devnet {
  rpcUrl: string
  chainId: number
  network: string
  token: string
  accounts: Array<{ address: string; privateKey: string }>
  stop(): Promise<void>
}

/** The anvil binary of the installed platform package. */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url)
  const platform = `${process.platform === 'win32' ? 'win32' : process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`
  const pkg = require.resolve(`@foundry-rs/anvil-${platform}/package.json`)
  return join(dirname(pkg), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil')
}

async function waitForRpc(url: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}`)
    try {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      })
      if (r.ok) return
    } catch {}
    if (Date.now() > deadline) throw new Error(`anvil did not answer on ${url} within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

export async function startDevnet(options: {
  compiler: SolidityCompiler
  port?: number
  host?: string
  chainId?: number
  fund?: bigint
  /** The anvil program to run; by default the installed npm package's. */
  anvil?: string
}): Promise<Devnet> {
  const host = options.host ?? '127.0.0.1'
  const port = options.port ?? 8545
  const chainId = options.chainId ?? 31337
  const child = spawn(
    options.anvil ?? anvilBinary(),
    ['--host', host, '--port', String(port), '--chain-id', String(chainId), '--silent'],
    { stdio: 'ignore' },
  )
  const rpcUrl = `http://${host}:${port}`
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
    })
  try {
    await waitForRpc(rpcUrl, child, 20_000)
    const compiled = await options.compiler.compile(TEST_USDC_SOURCE, 'TestUsdc.sol')
    const token = compiled.contracts.find((c) => c.name === 'TestUsdc')
    if (!token) throw new Error(`the test token did not compile: ${compiled.errors.join('\n')}`)
    const chain = defineChain({
      id: chainId,
      name: 'devnet',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    })
    const publicClient = createPublicClient({ chain, transport: http(rpcUrl) })
    const deployer = createWalletClient({ account: privateKeyToAccount(ANVIL_KEYS[0]), chain, transport: http(rpcUrl) })
    const hash = await deployer.deployContract({ abi: token.abi as never, bytecode: token.bytecode as Hex })
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    const address = receipt.contractAddress!
    const fund = options.fund ?? 1_000_000_000n // 1,000 USDC (6 decimals)
    const accounts = ANVIL_KEYS.map((privateKey) => ({ address: privateKeyToAccount(privateKey).address, privateKey }))
    for (const a of accounts) {
      const minted = await deployer.writeContract({
        address,
        abi: parseAbi(['function mint(address to, uint256 value)']),
        functionName: 'mint',
        args: [a.address as Hex, fund],
      })
      await publicClient.waitForTransactionReceipt({ hash: minted })
    }
    return { rpcUrl, chainId, network: 'anvil', token: address, accounts, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
