/**
 * The entry point: `automaton <command> [options]`. It reads the process's arguments and hands
 * them to the command line (adapters/cli/), which runs one command: `serve` and `worker` open the
 * system the composition root (system/) builds and serve it; `migrate` opens it to act once;
 * `orgs …`, `keys …` and the other one-shot commands open only the store and the services they
 * call (system/commands.ts). This file gives the command line what it needs from the root (the
 * version, the runtime, opening either system, an HTTP server of the runtime); only it and system/
 * know every layer. Both systems are imported when opened, so a one-shot command loads neither the
 * plugins nor the HTTP app.
 */
import process from 'node:process'
import { withMemoryHint } from './adapters/bun/memory-hint.ts'
import { type CliHost, parseArgs, runAndExit, runCli as runCommandLine } from './adapters/cli/index.ts'
import type { SystemOptions } from './system/index.ts'
import { isBun, VERSION } from './system/platform.ts'
import type { Config } from './core/config.ts'

export type { System, SystemOptions } from './system/index.ts'
export { parseArgs, VERSION }

/** Opens the serving system (see system/index.ts); imported on first use. */
export const openSystem = async (config: Config, options?: SystemOptions) =>
  (await import('./system/index.ts')).openSystem(config, options)

/** What the command line gets from this root: the version, the runtime, the systems and an HTTP server. */
const host: CliHost = {
  version: VERSION,
  runtime: isBun ? 'bun' : 'deno',
  openSystem,
  openCommandSystem: async (config, options) =>
    (await import('./system/commands.ts')).openCommandSystem(config, options),
  async listen(fetch, options) {
    if (isBun) return (await import('./adapters/bun/serve.ts')).serveWithBun(fetch, options)
    return (await import('./adapters/deno/serve.ts')).serveWithDeno(fetch, options)
  },
}

/** Runs one command line (`automaton <command> [options]`): its exit code. */
export const runCli = (argv: readonly string[], env: Record<string, string | undefined>): Promise<number> =>
  runCommandLine(argv, env, host)

/** Runs the process's command line and exits with its code (this file run directly, or bin/automaton.ts). */
export function main(): void {
  withMemoryHint(process.argv.slice(2), process.env)
  runAndExit(process.argv.slice(2), process.env, host)
}

if (import.meta.main) main()
