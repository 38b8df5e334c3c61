/**
 * Where `automaton devnet` finds anvil, which it does not carry (43 MB): AUTOMATON_ANVIL_PATH,
 * then beside the automaton binary, then the checkout's npm package (@foundry-rs/anvil), then
 * `PATH`. When none has it, one line says how to get it.
 */
import { accessSync, constants } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { ConfigError } from '../../core/config.ts'
import { anvilBinary } from '../evm/devnet.ts'

const NAME = process.platform === 'win32' ? 'anvil.exe' : 'anvil'

const runnable = (path: string) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function installedPackage(): string | null {
  try {
    return anvilBinary()
  } catch {
    return null
  }
}

/** The anvil to run, or a ConfigError naming how to get one. */
export function findAnvil(configured: string | null, env: Record<string, string | undefined>): string {
  if (configured) {
    if (runnable(configured)) return configured
    throw new ConfigError(`AUTOMATON_ANVIL_PATH names ${configured}, which is not a program this user may run`)
  }
  const beside = join(dirname(process.execPath), NAME)
  if (runnable(beside)) return beside
  const installed = installedPackage()
  if (installed && runnable(installed)) return installed
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, NAME)
    if (runnable(candidate)) return candidate
  }
  throw new ConfigError(
    'devnet needs anvil, which was not found beside this program, in node_modules or on PATH: install it (`npm install -g @foundry-rs/anvil`, or Foundry) or set AUTOMATON_ANVIL_PATH',
  )
}
