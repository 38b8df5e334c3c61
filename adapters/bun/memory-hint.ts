/**
 * The JavaScript engine (JSC) sizes its garbage collection by the machine's memory: on a machine
 * with gigabytes it lets garbage pile up to hundreds of megabytes under load before collecting
 * (the overload soak peaked near 400 MB with 40 MB live). A serving process asks it to size for
 * AUTOMATON_GC_MEMORY_MB instead. JSC reads that (BUN_JSC_forceRAMSize) once, as it starts, so
 * the process executes itself again with it set before doing anything: the same process (its
 * id, its open files) with a new image. Elsewhere (Deno), or when the variable is set already,
 * nothing.
 */
import process from 'node:process'
import { CONFIG_ENTRIES } from '../../core/config.ts'

export function withMemoryHint(args: readonly string[], env: NodeJS.ProcessEnv): void {
  const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined'
  const execve = (
    process as { execve?: (file: string, args: string[], env: Record<string, string | undefined>) => never }
  ).execve
  if (
    !isBun ||
    typeof execve !== 'function' ||
    (args[0] !== 'serve' && args[0] !== 'worker') ||
    env.BUN_JSC_forceRAMSize !== undefined
  )
    return
  const mb = Number(env.AUTOMATON_GC_MEMORY_MB?.trim() || CONFIG_ENTRIES.find((e) => e.key === 'gcMemoryMb')!.default)
  // 0 leaves the engine alone; a malformed value is refused by the configuration, with its reason.
  if (!Number.isInteger(mb) || mb <= 0) return
  // A compiled binary's argv[1] is its bundled entry, not a file to run.
  const compiled = /^(\/\$bunfs\/|[A-Z]:[\\/]~BUN[\\/])/.test(process.argv[1] ?? '')
  const argv = compiled
    ? [process.execPath, ...process.argv.slice(2)]
    : [process.execPath, ...process.execArgv, ...process.argv.slice(1)]
  execve(process.execPath, argv, { ...env, BUN_JSC_forceRAMSize: String(mb * 2 ** 20) })
}
