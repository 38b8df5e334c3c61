/**
 * The fault scenarios: what runs, what breaks, and for how long. runScenario() starts the
 * scenario's own dependencies (a private Postgres, a private NATS, a tmpfs) and processes, sends
 * the load, breaks the dependency, brings it back, lets the runs drain and answers the verdict;
 * everything it started is stopped and removed, also when it fails. The CI subset
 * (tests/faults/*.test.ts) asserts on the verdict; `npm run bench -- faults` prints its times.
 */
import { postgresBinDir, type PrivatePostgres, startPrivatePostgres } from '../helpers/private-postgres.ts'
import { natsServerBin, type PrivateNats, startPrivateNats } from '../helpers/private-nats.ts'
import { mountTmpfs, type Tmpfs } from '../helpers/tmpfs.ts'
import { tempDir } from '../helpers/tmp.ts'
import { type Cluster, startCluster, type Topology } from './cluster.ts'
import { publishFaultWorkflows, type SentRun, startCallCounter, startLoad } from './load.ts'
import { type ReadySample, watchReadiness } from './readiness.ts'
import { drained, type FaultWindow, judge, type Verdict } from './verdict.ts'

export type Need = 'postgres' | 'nats' | 'tmpfs'

export interface FaultContext {
  cluster: Cluster
  pg: PrivatePostgres | null
  nats: PrivateNats | null
  tmpfs: Tmpfs | null
  /** How long the dependency stays away (scenarios that have an outage). */
  outageMs: number
}

export interface Scenario {
  name: string
  /** What it does, for the benchmark's table. */
  title: string
  needs: Need[]
  topology: 'serve-pair' | 'api-workers' | 'embedded'
  workers?: number
  /** A process is killed or frozen: a node that was executing may run again (same idempotency key). */
  crash: boolean
  /** The process that answers requests is down meanwhile (killed): there are no answers to judge. */
  down?: boolean
  /** Nothing can be admitted meanwhile: requests answer 503 (with Retry-After and the error body). */
  refuses: boolean
  /** The processes that stay up say so: /readyz answers 503 during the fault. */
  unready: boolean
  /** How long the dependency stays away in the benchmark (scenarios with an outage). */
  outageMs?: number
  /** Breaks the dependency and brings it back; answers when each happened. */
  fault(ctx: FaultContext): Promise<FaultWindow>
}

export interface ScenarioOptions {
  /** Runs started per second. */
  rate: number
  /** Load before the fault, and after the return, in ms. */
  warmMs: number
  afterMs: number
  /** How long an outage lasts (the scenario's own, for the benchmark, when unset). */
  outageMs?: number
  /** How long the runs may take to drain after the load stops. */
  drainMs: number
  /** Workers of an API + workers scenario (the scenario's own number when unset). */
  workers?: number
  /** Heartbeat timing of the processes (the default ones when unset). */
  workerTimeoutMs?: number
  heartbeatMs?: number
}

export interface ScenarioResult {
  scenario: Scenario
  window: FaultWindow
  /** Every run had ended when the drain stopped waiting. */
  drained: boolean
  verdict: Verdict
  /** The longest the test's own event loop lagged (it sends the load and polls /readyz): above a few tens of ms, its times are late by that much. */
  clientLagMs: number
  /** The raw records the verdict was read from: every request with its attempts, every /readyz answer. */
  sent: SentRun[]
  readiness: Map<string, ReadySample[]>
  /** The processes' last log lines, for a failure's message. */
  logs: () => string
}

/** What this machine lacks to run the scenario (a binary), or null; see tmpfsRefusal() for mounting. */
export function missing(needs: Need[]): string | null {
  if (needs.includes('postgres') && !postgresBinDir()) return 'initdb and pg_ctl (/usr/lib/postgresql/<version>/bin)'
  if (needs.includes('nats') && !natsServerBin()) return 'nats-server'
  return null
}

const sleep = (ms: number) => Bun.sleep(ms)
const outage = async (
  before: () => Promise<void>,
  after: () => Promise<void>,
  outageMs: number,
): Promise<FaultWindow> => {
  const faultAt = Date.now()
  await before()
  await sleep(outageMs)
  await after()
  return { faultAt, returnAt: Date.now() }
}

const pgStop: Scenario['fault'] = ({ pg, outageMs }) =>
  outage(
    () => pg!.stop(),
    () => pg!.start(),
    outageMs,
  )
const pgRestart: Scenario['fault'] = async ({ pg }) => {
  const faultAt = Date.now()
  await pg!.restart()
  return { faultAt, returnAt: Date.now() }
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'pg-restart-serve-pair',
    title: 'Postgres fast restart, two `serve` on Postgres',
    needs: ['postgres'],
    topology: 'serve-pair',
    crash: false,
    refuses: false,
    unready: false,
    fault: pgRestart,
  },
  {
    name: 'pg-stop-serve-pair',
    title: 'Postgres stopped, two `serve` on Postgres',
    needs: ['postgres'],
    topology: 'serve-pair',
    crash: false,
    refuses: true,
    unready: true,
    outageMs: 30_000,
    fault: pgStop,
  },
  {
    name: 'pg-restart-api-workers',
    title: 'Postgres fast restart, API + 2 workers',
    needs: ['postgres', 'nats'],
    topology: 'api-workers',
    workers: 2,
    crash: false,
    refuses: false,
    unready: false,
    fault: pgRestart,
  },
  {
    name: 'pg-stop-api-workers',
    title: 'Postgres stopped, API + 2 workers',
    needs: ['postgres', 'nats'],
    topology: 'api-workers',
    workers: 2,
    crash: false,
    refuses: true,
    unready: true,
    outageMs: 30_000,
    fault: pgStop,
  },
  {
    name: 'nats-kill',
    title: 'NATS killed (SIGKILL), API + workers',
    needs: ['postgres', 'nats'],
    topology: 'api-workers',
    workers: 2,
    crash: false,
    refuses: false,
    unready: true,
    outageMs: 20_000,
    fault: ({ nats, outageMs }) =>
      outage(
        () => nats!.kill(),
        () => nats!.start(),
        outageMs,
      ),
  },
  {
    name: 'nats-wipe',
    title: 'NATS killed and its JetStream store wiped, API + 2 workers',
    needs: ['postgres', 'nats'],
    topology: 'api-workers',
    workers: 2,
    crash: false,
    refuses: false,
    unready: false,
    fault: ({ nats }) =>
      outage(
        () => nats!.wipe(),
        async () => {},
        0,
      ),
  },
  {
    name: 'worker-freeze',
    title: 'a worker frozen (SIGSTOP) past its timeout, then woken',
    needs: ['postgres', 'nats'],
    topology: 'api-workers',
    workers: 2,
    crash: true,
    refuses: false,
    unready: false,
    outageMs: 20_000,
    fault: ({ cluster, outageMs }) =>
      outage(
        async () => cluster.workers[0].signal('SIGSTOP'),
        async () => cluster.workers[0].signal('SIGCONT'),
        outageMs,
      ),
  },
  {
    name: 'embedded-kill',
    title: 'kill -9 of the embedded server (SQLite), restarted',
    needs: [],
    topology: 'embedded',
    crash: true,
    down: true,
    refuses: false,
    unready: false,
    fault: async ({ cluster }) => {
      const faultAt = Date.now()
      await cluster.apis[0].restart()
      return { faultAt, returnAt: Date.now() }
    },
  },
  {
    name: 'disk-full',
    title: 'full disk under the embedded server (SQLite on a full tmpfs)',
    needs: ['tmpfs'],
    topology: 'embedded',
    crash: false,
    refuses: true,
    unready: true,
    outageMs: 20_000,
    fault: ({ tmpfs, outageMs }) =>
      outage(
        async () => void tmpfs!.fill(),
        async () => tmpfs!.free(),
        outageMs,
      ),
  },
]

export const scenario = (name: string) => {
  const found = SCENARIOS.find((s) => s.name === name)
  if (!found) throw new Error(`no fault scenario "${name}"`)
  return found
}

/** The figures the issue sets: ready within 5 s of the return, every accepted run ended within 30 s. */
export const TARGETS = { readyAfterReturnMs: 5_000, endedAfterReturnMs: 30_000 }

type Cleanups = Array<() => Promise<unknown> | unknown>

/** The cleanups of scenarios still running: a test that timed out leaves its servers to afterAll. */
const unfinished = new Set<Cleanups>()

/** Runs (once) what a scenario started must undo, newest first; reports failures and goes on. */
async function cleanUp(name: string, cleanups: Cleanups) {
  for (let cleanup = cleanups.pop(); cleanup; cleanup = cleanups.pop()) {
    try {
      await cleanup()
    } catch (error) {
      console.warn(`fault scenario ${name}: cleanup failed: ${(error as Error).message}`)
    }
  }
  unfinished.delete(cleanups)
}

/** Stops and removes whatever scenarios that never finished (a test's timeout) left running. */
export async function cleanUpAbandoned(): Promise<void> {
  for (const cleanups of [...unfinished]) await cleanUp('(abandoned)', cleanups)
}

/** The scenario's own Postgres, NATS and tmpfs (what it needs), and the topology on them. */
async function startDependencies(s: Scenario, options: ScenarioOptions, cleanups: Cleanups) {
  const pg = s.needs.includes('postgres') ? await startPrivatePostgres() : null
  if (pg) cleanups.push(() => pg.destroy())
  const nats = s.needs.includes('nats') ? await startPrivateNats() : null
  if (nats) cleanups.push(() => nats.destroy())
  let tmpfs: Tmpfs | null = null
  if (s.needs.includes('tmpfs')) {
    const mounted = await mountTmpfs(256)
    if (!mounted.fs) throw new Error(mounted.reason)
    tmpfs = mounted.fs
    cleanups.push(() => tmpfs!.unmount())
  }
  const databaseUrl = pg ? await pg.createDatabase('automaton_faults') : ''
  const sqliteDir = s.topology === 'embedded' && !tmpfs ? tempDir('automaton-faults-') : null
  if (sqliteDir) cleanups.push(() => sqliteDir.remove())
  const topology: Topology =
    s.topology === 'serve-pair'
      ? { kind: 'serve-pair', databaseUrl }
      : s.topology === 'api-workers'
        ? { kind: 'api-workers', databaseUrl, natsUrl: nats!.url, workers: options.workers ?? s.workers ?? 1 }
        : { kind: 'embedded', dataDir: tmpfs ? `${tmpfs.path}/data` : sqliteDir!.path }
  return { pg, nats, tmpfs, topology }
}

export async function runScenario(s: Scenario, options: ScenarioOptions): Promise<ScenarioResult> {
  const cleanups: Cleanups = []
  unfinished.add(cleanups)
  const later = <T extends { stop(): unknown }>(thing: T) => {
    cleanups.push(() => thing.stop())
    return thing
  }
  try {
    const { pg, nats, tmpfs, topology } = await startDependencies(s, options, cleanups)
    const cluster = later(
      await startCluster(topology, {
        ...(options.workerTimeoutMs ? { AUTOMATON_WORKER_TIMEOUT_MS: String(options.workerTimeoutMs) } : {}),
        ...(options.heartbeatMs ? { AUTOMATON_HEARTBEAT_MS: String(options.heartbeatMs) } : {}),
      }),
    )
    const calls = later(startCallCounter())
    const workflows = await publishFaultWorkflows(cluster.apis[0].url(), calls.receiver)
    const readiness = later(watchReadiness(cluster.all))
    const load = startLoad({ rate: options.rate, bases: () => cluster.apis.map((p) => p.url()), workflows })
    cleanups.push(() => load.abandon())
    const lag = later(watchLag())

    await sleep(options.warmMs)
    const window = await s.fault({ cluster, pg, nats, tmpfs, outageMs: options.outageMs ?? s.outageMs ?? 0 })
    await sleep(options.afterMs)
    await load.stop()
    const allEnded = await drained(cluster.env, workflows.ids(), options.drainMs)
    await readiness.stop()
    const verdict = await judge({
      env: cluster.env,
      workflowIds: workflows.ids(),
      sent: load.sent,
      window,
      readiness: readiness.samples,
      calls,
      exits: cluster.exits,
    })
    return {
      scenario: s,
      window,
      drained: allEnded,
      verdict,
      clientLagMs: lag.maxMs(),
      sent: load.sent,
      readiness: readiness.samples,
      logs: () => cluster.all.map((p) => `--- ${p.name}\n${p.logs().slice(-4000)}`).join('\n'),
    }
  } finally {
    await cleanUp(s.name, cleanups)
  }
}

/** How late a 50 ms timer of this process fires, at most. */
function watchLag() {
  let max = 0
  let expected = Date.now() + 50
  const timer = setInterval(() => {
    max = Math.max(max, Date.now() - expected)
    expected = Date.now() + 50
  }, 50)
  return { maxMs: () => max, stop: () => clearInterval(timer) }
}
