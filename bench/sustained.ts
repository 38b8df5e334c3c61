/**
 * Sustained webhook → run → success, against the bare ceiling measured in the same run, on the
 * embedded default (SQLite) and, when AUTOMATON_TEST_DATABASE_URL is set, on Postgres (the same
 * single process with AUTOMATON_DATABASE_URL). The load is steady: 32 connections sending for
 * 15 s (`--scale` shortens it, to 5 s at least) to the webhook of a published 3-node workflow
 * (manual trigger → set-variable → log), the load generator in its own process. The server runs
 * with its defaults, as `npm start` does.
 *
 * Figures: runs per second from the first request to the last run's end (what execution
 * sustains; acceptance can outrun it only into the backlog), answer p50/p99, the ratio to the
 * ceiling, how long after the load's end the last accepted run finished (the backlog), and the
 * server's CPU time per run (all its threads; steadier than the rate on a shared machine) and, on
 * Postgres, the database server's (all its processes on this machine).
 * AUTOMATON_EXECUTION_LAG_TARGET_MS and AUTOMATON_WORKER_CONCURRENCY, when set, are passed to the
 * server (to compare the executor's settings).
 * With `--profile` (or BENCH_PROFILE=1), the server runs under `bun --cpu-prof` and the bench
 * prints where its busy time went (bench/profile.ts).
 *   bun bench/sustained.ts [--scale 0.5] [--profile] [--store sqlite|postgres]
 */
import { copyFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BUN, ROOT, startServer } from '../tests/helpers/process.ts'
import { printSummary, summarize } from './profile.ts'
import { freshPostgresUrl } from '../tests/helpers/services.ts'
import { queryDatabase } from '../tests/helpers/stores.ts'
import { tempDir } from '../tests/helpers/tmp.ts'
import { ceiling, client, KEY, live, settle } from './engine.ts'
import { cpuSecondsOf, cpuSecondsOfAll } from './served.ts'
import type { Result } from './store-writes.ts'

const CONNECTIONS = 32
const PROFILE = process.argv.includes('--profile') || process.env.BENCH_PROFILE === '1'
const now = () => performance.timeOrigin + performance.now()

/** What a sustained benchmark loads: the published workflow's nodes, and what the server needs for them. */
export interface Workload {
  /** Names the runs in the result rows, e.g. `3-node run`. */
  runs: string
  /** Names the kept CPU profile, e.g. `sustained`. */
  tag: string
  nodes: Record<string, unknown>
  /** Extra server environment (e.g. the private address an http-request node may call). */
  env?: Record<string, string>
}

/** The executor's tuning, passed to the server when set for the bench (to compare settings). */
const PASSED_THROUGH = ['AUTOMATON_EXECUTION_LAG_TARGET_MS', 'AUTOMATON_WORKER_CONCURRENCY']
const passedThrough = () =>
  Object.fromEntries(PASSED_THROUGH.flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])))

/** The pure 3-node workflow: manual trigger → set-variable → log. */
export const PURE: Workload = {
  runs: '3-node run',
  tag: 'sustained',
  nodes: {
    root: { type: 'manual', children: ['note'] },
    note: {
      type: 'set-variable',
      payload: { name: 'order', value: '{{$trigger.body.order.id}}' },
      children: ['log'],
    },
    log: { type: 'log', payload: { message: 'order {{$vars.order}}' } },
  },
}

async function measure(label: string, seconds: number, work: Workload, postgresUrl?: string): Promise<Result[]> {
  const bare = await ceiling(`${seconds}s`, CONNECTIONS, postgresUrl)
  const dir = tempDir('automaton-sustained-')
  const env: Record<string, string> = {
    AUTOMATON_DATA_DIR: dir.path,
    AUTOMATON_BOOTSTRAP_KEY: KEY,
    AUTOMATON_LOG_LEVEL: 'info',
    ...work.env,
    ...passedThrough(),
  }
  if (postgresUrl) env.AUTOMATON_DATABASE_URL = postgresUrl
  const cmd = PROFILE ? [BUN, '--cpu-prof', `--cpu-prof-dir=${dir.path}`, join(ROOT, 'main.ts'), 'serve'] : undefined
  const server = await startServer({ env, cmd })
  let stopped = false
  try {
    const flow = await live(server, work.nodes)
    const url = `${server.url}/v1/webhooks/${flow.triggerSecret}`
    const warm = await client(url, 2000, CONNECTIONS)
    await settle(server, flow.id, warm.accepted, 'success')
    const cpuBefore = cpuSecondsOf(server.pid)
    const databaseCpuBefore = postgresUrl ? cpuSecondsOfAll('postgres') : 0
    const loadStart = now()
    const load = await client(url, `${seconds}s`, CONNECTIONS)
    const loadEnd = now()
    await settle(server, flow.id, warm.accepted + load.accepted, 'success')
    // The server's CPU per run (all its threads), less sensitive than the rate to what else runs on the machine.
    const cpuMsPerRun = ((cpuSecondsOf(server.pid) - cpuBefore) * 1000) / load.accepted
    // Postgres shares the machine's cores with the server: its CPU per run counts as much.
    const databaseCpuMsPerRun = postgresUrl
      ? ((cpuSecondsOfAll('postgres') - databaseCpuBefore) * 1000) / load.accepted
      : 0
    const [span] = await queryDatabase<{ last: number }>(
      env,
      'SELECT MAX(finished_at) AS last FROM runs WHERE workflow_id = $1',
      [flow.id],
    )
    const lastFinished = Number(span.last)
    const rate = load.accepted / ((lastFinished - loadStart) / 1000)
    const drainMs = Math.max(0, lastFinished - loadEnd)
    const store = postgresUrl ? 'Postgres' : 'SQLite'
    if (PROFILE) {
      stopped = true
      await server.stop('SIGTERM')
      const file = readdirSync(dir.path).find((f) => f.endsWith('.cpuprofile'))
      if (file) {
        const kept = join(tmpdir(), `automaton-${work.tag}-${label.toLowerCase()}.cpuprofile`)
        copyFileSync(join(dir.path, file), kept)
        printSummary(`${label}: server CPU profile (warm-up and load), kept in ${kept}`, summarize(kept))
      } else console.warn('!!! no CPU profile was written')
    }
    return [
      {
        name: `${label}: bare Bun + ${store} durable insert (ceiling)`,
        value: Math.round(bare.rps),
        unit: 'req/s',
        note: `p99 ${bare.p99.toFixed(1)} ms, ${CONNECTIONS} connections`,
      },
      {
        name: `${label}: sustained webhook → ${work.runs} → success`,
        value: Math.round(rate),
        unit: 'runs/s',
        note:
          `${(rate / bare.rps).toFixed(2)} of the ceiling; answers p50 ${load.p50.toFixed(1)} ms, p99 ${load.p99.toFixed(1)} ms; ` +
          `${load.accepted.toLocaleString('en')} accepted, ${load.refused} refused, ${load.errors} errors; last run finished ${drainMs.toFixed(0)} ms after the load; ` +
          `server CPU ${cpuMsPerRun.toFixed(3)} ms per run${postgresUrl ? `, Postgres CPU ${databaseCpuMsPerRun.toFixed(3)} ms per run` : ''}`,
      },
    ]
  } catch (error) {
    console.error(server.logs().slice(-4000))
    throw error
  } finally {
    if (!stopped) await server.stop('SIGKILL')
    dir.remove()
  }
}

export interface SustainedOptions {
  scale?: number
  store?: 'sqlite' | 'postgres'
}

/** Measures `work` on SQLite and, when AUTOMATON_TEST_DATABASE_URL is set, on a fresh Postgres database. */
export async function sustain(work: Workload, options: SustainedOptions = {}): Promise<Result[]> {
  const seconds = Math.max(5, Math.round(15 * (options.scale ?? 1)))
  const results = options.store === 'postgres' ? [] : await measure('SQLite', seconds, work)
  if (options.store === 'sqlite') return results
  if (process.env.AUTOMATON_TEST_DATABASE_URL) {
    const pg = await freshPostgresUrl()
    try {
      results.push(...(await measure('Postgres', seconds, work, pg.url)))
    } finally {
      await pg.drop()
    }
  } else {
    console.warn('!!! Postgres sustained benchmark skipped: AUTOMATON_TEST_DATABASE_URL is not set')
  }
  return results
}

export const run = (options: SustainedOptions = {}) => sustain(PURE, options)

/** The command line of a sustained benchmark: `[--scale 0.5] [--store sqlite|postgres]`. */
export function optionsFromArgs(argv: string[]): SustainedOptions {
  const at = argv.indexOf('--scale')
  const only = argv.indexOf('--store')
  return {
    scale: at > 0 ? Number(argv[at + 1]) : 1,
    store: only > 0 ? (argv[only + 1] as 'sqlite' | 'postgres') : undefined,
  }
}

export function print(results: Result[]): void {
  for (const r of results)
    console.log(`${r.name}: ${r.value.toLocaleString('en')} ${r.unit}${r.note ? ` (${r.note})` : ''}`)
}

if (import.meta.main) print(await run(optionsFromArgs(process.argv)))
