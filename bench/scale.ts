/**
 * Runs per second scaled out on Postgres and NATS: one API process with one worker, then with
 * two, each on a fresh database schema; the same burst of webhook-started 5-node runs; the rate
 * is runs finished per second (first start to last finish, from the journal). The workflow's
 * nodes are pure, so by default its runs end at admission in the API process; the worker rounds
 * set AUTOMATON_FINISH_AT_ADMISSION=false, so that every run takes the trip through JetStream to
 * a worker. Needs AUTOMATON_TEST_DATABASE_URL; starts its own nats-server.
 *
 * With `--profile` (or BENCH_PROFILE=1), the workers of the rounds through the workers run under
 * `bun --cpu-prof`, and the bench prints where their busy time went (bench/profile.ts). The
 * profiler adds to their CPU per run: read the shares, not the figures, of a profiled round.
 *   bun bench/scale.ts [--profile]
 */
import { copyFileSync, readdirSync, readFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { api, BUN, ROOT, startNats, startServer, startWorker } from '../tests/helpers/process.ts'
import { freshPostgresUrl } from '../tests/helpers/services.ts'
import { queryDatabase } from '../tests/helpers/stores.ts'
import { tempDir } from '../tests/helpers/tmp.ts'
import { printSummary, summarize } from './profile.ts'
import type { Result } from './store-writes.ts'
import { cpuSecondsOf } from './served.ts'

const KEY = 'svcsk_scale_bench_bootstrap_key_0123456789'
const PROFILE = process.argv.includes('--profile') || process.env.BENCH_PROFILE === '1'

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100

/** CPU seconds the whole machine has been busy (all cores together). */
function machineCpu(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number)
  const idle = ticks[3] + ticks[4]
  return (ticks.slice(0, 8).reduce((a, b) => a + b, 0) - idle) / TICKS_PER_SECOND
}
interface Measured {
  rate: number
  accepted: number
  /** Share of the machine's CPU in use while the runs were accepted and executed. */
  busy: number
  /** CPU per run, in microseconds: the API process, the workers together, and everything else. */
  apiUs: number
  workersUs: number
  restUs: number
}

async function runsPerSecond(
  workers: number,
  total: number,
  natsUrl: string,
  extra: Record<string, string> = {},
): Promise<Measured> {
  const pg = await freshPostgresUrl()
  const dir = tempDir('automaton-scale-')
  const env = {
    AUTOMATON_DATA_DIR: dir.path,
    AUTOMATON_DATABASE_URL: pg.url,
    AUTOMATON_NATS_URL: natsUrl,
    AUTOMATON_NATS_STREAM: `BENCH_${workers}_${Date.now()}`,
    AUTOMATON_BOOTSTRAP_KEY: KEY,
    AUTOMATON_MASTER_KEY: btoa(String.fromCharCode(...new Uint8Array(32).fill(7))),
    AUTOMATON_LOG_LEVEL: 'info',
    AUTOMATON_WORKER_CONCURRENCY: '512',
    ...extra,
  }
  const server = await startServer({ env })
  const profiled = PROFILE && extra.AUTOMATON_FINISH_AT_ADMISSION === 'false'
  const profileDirs = Array.from({ length: workers }, () => (profiled ? tempDir('automaton-worker-prof-') : null))
  const procs: Array<Awaited<ReturnType<typeof startWorker>>> = []
  try {
    // Started one by one, so that a worker that fails to start leaves none running behind it.
    for (const d of profileDirs) procs.push(await startWorker(env, 20_000, d ? { cpuProfileDir: d.path } : {}))
    const created = await api(server.url, 'POST', '/v1/workflows', KEY, {
      definition: {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'manual', children: ['a'] },
          a: { type: 'log', payload: { message: 'order {{$trigger.body.order.id}}' }, children: ['check'] },
          check: {
            type: 'if',
            payload: { condition: { $and: [{ '{{$trigger.body.order.amount}}': { $gt: 100 } }] } },
            children: ['big', 'small'],
          },
          big: {
            type: 'pluck',
            branch: 'then',
            payload: { array: ['{{$trigger.body.order}}'], fields: ['id'] },
            children: ['note'],
          },
          small: { type: 'log', branch: 'else', payload: { message: 'small' } },
          note: { type: 'log', payload: { message: 'noted' }, children: ['done'] },
          done: { type: 'log', payload: { message: 'done' } },
        },
      },
    })
    const w = (await api(server.url, 'POST', `/v1/workflows/${created.body.data.id}/publish`, KEY)).body.data
    const cpuAtStart = {
      machine: machineCpu(),
      api: cpuSecondsOf(server.pid),
      workers: procs.map((p) => cpuSecondsOf(p.pid)),
      at: performance.now(),
    }
    const client = Bun.spawn(
      [BUN, join(ROOT, 'bench', 'load-client.ts'), `${server.url}/v1/webhooks/${w.triggerSecret}`, String(total), '64'],
      { stdout: 'pipe', stderr: 'inherit' },
    )
    const accepted = JSON.parse((await new Response(client.stdout).text()).trim().split('\n').at(-1)!).count as number
    const deadline = Date.now() + 300_000
    for (;;) {
      const done = await queryDatabase<{ n: number }>(env, "SELECT COUNT(*) AS n FROM runs WHERE status = 'success'")
      if (Number(done[0].n) >= total || Date.now() > deadline) break
      await Bun.sleep(250)
    }
    const elapsed = (performance.now() - cpuAtStart.at) / 1000
    const machine = machineCpu() - cpuAtStart.machine
    const apiCpu = cpuSecondsOf(server.pid) - cpuAtStart.api
    const workerCpu = procs.reduce((sum, p, i) => sum + cpuSecondsOf(p.pid) - cpuAtStart.workers[i], 0)
    const span = await queryDatabase<{ first: number; last: number; n: number }>(
      env,
      "SELECT MIN(started_at) AS first, MAX(finished_at) AS last, COUNT(*) AS n FROM runs WHERE status = 'success'",
    )
    const perRun = (seconds: number) => Math.round((seconds / total) * 1e6)
    if (profiled) await printWorkerProfiles(procs, profileDirs, workers)
    return {
      rate: Number(span[0].n) / ((Number(span[0].last) - Number(span[0].first)) / 1000),
      accepted,
      busy: machine / (elapsed * cpus().length),
      apiUs: perRun(apiCpu),
      workersUs: perRun(workerCpu),
      restUs: perRun(machine - apiCpu - workerCpu),
    }
  } finally {
    for (const p of procs) await p.stop('SIGKILL')
    await server.stop('SIGKILL')
    await pg.drop()
    dir.remove()
    for (const d of profileDirs) d?.remove()
  }
}

/** Stops the profiled workers (SIGTERM, so the profiler writes its file) and prints their shares. */
async function printWorkerProfiles(
  procs: Array<{ stop(signal?: NodeJS.Signals): Promise<number> }>,
  dirs: Array<{ path: string } | null>,
  workers: number,
): Promise<void> {
  for (const [i, p] of procs.entries()) {
    await p.stop('SIGTERM')
    const dir = dirs[i]!.path
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
    if (!file) {
      console.warn('!!! no worker CPU profile was written')
      continue
    }
    const kept = join(tmpdir(), `automaton-scale-${workers}w-worker${i + 1}.cpuprofile`)
    copyFileSync(join(dir, file), kept)
    printSummary(`worker ${i + 1} of ${workers}: CPU profile (the burst), kept in ${kept}`, summarize(kept, 30))
  }
}

const cpuNote = (m: Measured) =>
  `machine CPU ${Math.round(m.busy * 100)}% busy; CPU per run: API ${m.apiUs} µs, workers ${m.workersUs} µs, Postgres + NATS + load client ${m.restUs} µs`

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  if (!process.env.AUTOMATON_TEST_DATABASE_URL) {
    console.warn('!!! scale-out benchmark skipped: AUTOMATON_TEST_DATABASE_URL is not set')
    return []
  }
  const total = Math.round(6000 * (options.scale ?? 1))
  const natsDir = tempDir('automaton-nats-')
  const nats = await startNats(natsDir.path)
  try {
    const viaWorkers = { AUTOMATON_FINISH_AT_ADMISSION: 'false' }
    const atAdmission = await runsPerSecond(1, total, nats.url)
    const one = await runsPerSecond(1, total, nats.url, viaWorkers)
    const two = await runsPerSecond(2, total, nats.url, viaWorkers)
    return [
      {
        name: 'scaled out, 1 API + 1 worker: 5-node runs of pure nodes ending at admission in the API/s (Postgres + NATS)',
        value: Math.round(atAdmission.rate),
        unit: 'runs/s',
        note: cpuNote(atAdmission),
      },
      {
        name: 'scaled out, 1 API + 1 worker: 5-node runs through the worker/s (Postgres + NATS)',
        value: Math.round(one.rate),
        unit: 'runs/s',
        note: cpuNote(one),
      },
      {
        name: 'scaled out, 1 API + 2 workers: 5-node runs through the workers/s (Postgres + NATS)',
        value: Math.round(two.rate),
        unit: 'runs/s',
        note: `${(two.rate / one.rate).toFixed(2)}× one worker; ${cpuNote(two)}`,
      },
    ]
  } finally {
    await nats.stop()
    natsDir.remove()
  }
}

if (import.meta.main) {
  for (const r of await run())
    console.log(`${r.name}: ${r.value.toLocaleString('en')} ${r.unit}${r.note ? ` (${r.note})` : ''}`)
}
