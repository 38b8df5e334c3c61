/** The command line's words: positional arguments, and flags as `--name value` or `--name=value`. */

/** A command or flag the command line does not take: exit code 2, with the usage. */
export class UsageError extends Error {
  override name = 'UsageError'
}

export function parseArgs(argv: readonly string[]): { positional: string[]; flags: Record<string, string> } {
  const positional: string[] = []
  const flags: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--help' || arg === '-h') flags.help = 'true'
    else if (arg === '--ready') flags.ready = 'true'
    else if (arg.startsWith('--')) {
      const eq = arg.indexOf('=')
      if (eq > 0) flags[arg.slice(2, eq)] = arg.slice(eq + 1)
      else {
        const value = argv[i + 1]
        if (value === undefined || value.startsWith('--')) throw new UsageError(`${arg} needs a value`)
        flags[arg.slice(2)] = value
        i++
      }
    } else positional.push(arg)
  }
  return { positional, flags }
}
