/**
 * The entry point: `automaton <command> [options]`. It reads the process's arguments and hands
 * them to the command line (adapters/cli/), which runs one command: `serve` and `worker` open the
 * system the composition root (system/) builds and serve it; `migrate`, `orgs …`, `keys …` open it
 * to act once. This file gives the command line what it needs from the root (the version, the
 * runtime, opening the system, an HTTP server of the runtime); only it and system/ know every layer.
 */
import process from 'node:process'
import { withMemoryHint } from './adapters/bun/memory-hint.ts'
import { type CliHost, parseArgs, runAndExit, runCli as runCommandLine } from './adapters/cli/index.ts'
import { BUILT_IN_PLUGINS } from './plugins/index.ts'
import { openSystem } from './system/index.ts'
import { isBun, VERSION } from './system/platform.ts'

export type { System, SystemOptions } from './system/index.ts'
export { BUILT_IN_PLUGINS, openSystem, parseArgs, VERSION }

/** What the command line gets from this root: the version, the runtime, the system and an HTTP server. */
const host: CliHost = {
  version: VERSION,
  runtime: isBun ? 'bun' : 'deno',
  openSystem,
  async listen(fetch, options) {
    if (isBun) return (await import('./adapters/bun/serve.ts')).serveWithBun(fetch, options)
    return (await import('./adapters/deno/serve.ts')).serveWithDeno(fetch, options)
  },
}

/** Runs one command line (`automaton <command> [options]`): its exit code. */
export const runCli = (argv: readonly string[], env: Record<string, string | undefined>): Promise<number> =>
  runCommandLine(argv, env, host)

if (import.meta.main) {
  withMemoryHint(process.argv.slice(2), process.env)
  runAndExit(process.argv.slice(2), process.env, host)
}
