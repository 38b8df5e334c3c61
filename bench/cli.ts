/**
 * The command line's answer time: whole processes of `automaton orgs create`, `orgs list` and
 * `keys create` (the checkout's entry, run by Bun, as `npx automaton` runs it) on a fresh embedded
 * store, and on Postgres when AUTOMATON_TEST_DATABASE_URL is set. Each call starts a process,
 * opens the store, acts and exits: the median and the slowest of the calls are reported.
 *   bun bench/run.ts cli [--scale 0.5]
 */
import { join } from 'node:path'
import { tempDir } from '../tests/helpers/tmp.ts'
import type { Result } from './store-writes.ts'

const ENTRY = join(import.meta.dir, '..', 'bin', 'automaton.ts')

function call(args: string[], env: Record<string, string>): { ms: number; out: string } {
  const started = performance.now()
  const done = Bun.spawnSync([process.execPath, ENTRY, ...args], { env: { ...process.env, ...env } })
  const ms = performance.now() - started
  if (done.exitCode !== 0) throw new Error(`automaton ${args.join(' ')} failed: ${done.stderr.toString()}`)
  return { ms, out: done.stdout.toString() }
}

function measure(label: string, calls: number, args: () => string[], env: Record<string, string>): Result[] {
  const times: number[] = []
  for (let i = 0; i < calls; i++) times.push(call(args(), env).ms)
  times.sort((a, b) => a - b)
  const median = times[Math.floor(times.length / 2)]
  return [
    {
      name: `cli ${label}`,
      value: Math.round(median),
      unit: 'ms',
      note: `median of ${calls} processes; slowest ${Math.round(times.at(-1)!)} ms`,
    },
  ]
}

function onStore(store: string, env: Record<string, string>, calls: number): Result[] {
  const org = JSON.parse(call(['orgs', 'create', 'bench'], env).out).id as string
  let n = 0
  return [
    ...measure(`orgs create (${store})`, calls, () => ['orgs', 'create', `bench ${n++}`], env),
    ...measure(`orgs list (${store})`, calls, () => ['orgs', 'list'], env),
    ...measure(`keys create (${store})`, calls, () => ['keys', 'create', '--org', org, '--name', `k${n++}`], env),
  ]
}

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  const calls = Math.max(3, Math.round(15 * (options.scale ?? 1)))
  const dir = tempDir('automaton-bench-cli-')
  try {
    const results = onStore('SQLite', { AUTOMATON_DATA_DIR: dir.path }, calls)
    const url = process.env.AUTOMATON_TEST_DATABASE_URL
    if (!url)
      return [...results, { name: 'cli (Postgres)', value: 0, unit: '', note: 'AUTOMATON_TEST_DATABASE_URL unset' }]
    return [...results, ...onStore('Postgres', { AUTOMATON_DATA_DIR: dir.path, AUTOMATON_DATABASE_URL: url }, calls)]
  } finally {
    dir.remove()
  }
}

if (import.meta.main) for (const r of await run()) console.log(r)
