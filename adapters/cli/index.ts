/**
 * The command line: `automaton <command> [options]`, one file per command in `commands/`. It is a
 * driving adapter: it reads the process's arguments, environment and standard input, and acts
 * through the system the composition root opens for it (the host). Every command prints JSON on
 * standard output and exits 0; a usage error exits 2 with the usage, any other failure 1.
 */
import process from 'node:process'
import { ConfigError, loadConfig } from '../../core/config.ts'
import { isAppError } from '../../core/errors.ts'
import { PluginLoadError } from '../../core/plugin/load.ts'
import { PluginError } from '../../core/plugin/registry.ts'
import { PassphraseError } from '../../core/security/passphrase.ts'
import { MasterKeyError } from '../../core/security/secret-box.ts'
import { BootstrapKeyError } from '../../core/services/organizations.ts'
import { UniverseFileError } from '../../core/services/universe.ts'
import { BackupError } from '../files/backup.ts'
import { parseArgs, UsageError } from './args.ts'
import type { CliHost, Command } from './host.ts'
import { print } from './io.ts'
import { usage } from './usage.ts'

export type { CliHost, CliSystem } from './host.ts'
export { parseArgs } from './args.ts'

/** Each command's module, loaded only when it runs: a one-shot command loads none of the server's code. */
const COMMANDS: ReadonlyMap<string, () => Promise<Command>> = new Map([
  ['serve', async () => (await import('./commands/serve.ts')).serve],
  ['worker', async () => (await import('./commands/worker.ts')).worker],
  ['migrate', async () => (await import('./commands/migrate.ts')).migrate],
  ['healthcheck', async () => (await import('./commands/healthcheck.ts')).healthcheck],
  ['orgs', async () => (await import('./commands/orgs.ts')).orgs],
  ['audit', async () => (await import('./commands/audit.ts')).audit],
  ['keys', async () => (await import('./commands/keys.ts')).keys],
  ['credits', async () => (await import('./commands/credits.ts')).credits],
  ['devnet', async () => (await import('./commands/devnet.ts')).devnet],
  ['users', async () => (await import('./commands/users.ts')).users],
  ['oidc', async () => (await import('./commands/oidc.ts')).oidc],
  ['backup', async () => (await import('./commands/backup.ts')).backup],
  ['universe', async () => (await import('./commands/universe.ts')).universe],
  ['master-key', async () => (await import('./commands/master-key.ts')).masterKey],
])

/** Runs one command line: its exit code, or a thrown error for `failureOf`. */
export async function runCli(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  host: CliHost,
): Promise<number> {
  const { positional, flags } = parseArgs(argv)
  const [command = 'serve', sub, ...rest] = positional
  if (flags.help || command === 'help') {
    process.stdout.write(`${usage(host.version)}\n`)
    return 0
  }
  if (command === 'version') {
    print({ version: host.version })
    return 0
  }
  const config = loadConfig(env)
  const load = COMMANDS.get(command)
  if (!load) throw new UsageError(`unknown command "${command}"`)
  return (await load())({ sub, rest, flags, config, host })
}

/** Runs the process's command line, then exits with its code, or with its failure's (see failureOf). */
export function runAndExit(argv: readonly string[], env: Record<string, string | undefined>, host: CliHost): void {
  runCli(argv, env, host).then(
    (code) => process.exit(code),
    (error) => {
      const failure = failureOf(error, host.version)
      process.stderr.write(failure.message)
      process.exit(failure.code)
    },
  )
}

/**
 * What a failed command writes on standard error, and its exit code: a usage error its message
 * and the usage (2); an error the operator can act on its message (1); anything else its stack (1).
 */
export function failureOf(error: unknown, version: string): { code: number; message: string } {
  if (error instanceof UsageError) return { code: 2, message: `automaton: ${error.message}\n\n${usage(version)}\n` }
  const known =
    error instanceof ConfigError ||
    error instanceof MasterKeyError ||
    error instanceof BootstrapKeyError ||
    isAppError(error) ||
    error instanceof BackupError ||
    error instanceof PassphraseError ||
    error instanceof PluginLoadError ||
    error instanceof PluginError ||
    error instanceof UniverseFileError
  return {
    code: 1,
    message: `automaton: ${known ? (error as Error).message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  }
}
