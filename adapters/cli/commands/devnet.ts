/** `devnet`: a local EVM (anvil) with a test USDC (EIP-3009) and funded accounts, until stopped. */
import process from 'node:process'
import { createSolcCompiler } from '../../solc/compiler.ts'
import { findAnvil } from '../anvil.ts'
import { UsageError } from '../args.ts'
import type { Command } from '../host.ts'
import { print, untilSignal } from '../io.ts'

export const devnet: Command = async ({ flags, config }) => {
  const port = flags.port ? Number(flags.port) : 8545
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError('--port must be a port number')
  const anvil = findAnvil(config.anvilPath, process.env)
  const { startDevnet } = await import('../../evm/devnet.ts')
  const compiler = createSolcCompiler()
  const started = await startDevnet({ compiler, port, host: flags.host ?? '127.0.0.1', anvil }).finally(() =>
    compiler.close(),
  )
  const { stop, ...described } = started
  // Listen for the stop signal before saying the chain is up: whoever reads the line may stop it at once.
  const signalled = untilSignal()
  print({
    ...described,
    chains: JSON.stringify([
      { chainId: started.chainId, name: 'devnet', rpcUrl: started.rpcUrl, network: started.network },
    ]),
  })
  await signalled
  await stop()
  return 0
}
