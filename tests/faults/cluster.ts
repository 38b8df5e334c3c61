/**
 * The processes a fault scenario breaks things under, as real `serve` and `worker` processes:
 * two `serve` on one Postgres (no NATS), an API process and workers on Postgres and NATS, or the
 * embedded server on SQLite. Every process answers /readyz (workers on AUTOMATON_WORKER_PORT),
 * and every exit the scenario did not cause itself is recorded: a fault must never end a process.
 */
import { api, type ServerProcess, startServer, startWorker } from '../helpers/process.ts'
import { freePort } from '../helpers/private-postgres.ts'
import { tempDir } from '../helpers/tmp.ts'

export const KEY = 'svcsk_fault_suite_bootstrap_key_0123456789abcdef'
const MASTER_KEY = btoa(String.fromCharCode(...new Uint8Array(32).fill(11)))

export type Topology =
  | { kind: 'serve-pair'; databaseUrl: string }
  | { kind: 'api-workers'; databaseUrl: string; natsUrl: string; workers: number }
  | { kind: 'embedded'; dataDir: string }

export interface Proc {
  readonly name: string
  readonly role: 'serve' | 'worker'
  /** Its HTTP base (a worker's health port); it changes when a `serve` is restarted. */
  url(): string
  pid(): number
  logs(): string
  /** Sends a signal the scenario means: an exit it causes is not counted as a failure. */
  signal(signal: NodeJS.Signals): void
  /** SIGKILL (expected), then the same process started again on the same data. */
  restart(): Promise<void>
}

export interface Exit {
  name: string
  code: number
  at: number
  logs: string
}

export interface Cluster {
  /** The processes that answer the API (runs are sent to them, round robin). */
  readonly apis: Proc[]
  readonly workers: Proc[]
  readonly all: Proc[]
  /** The environment every process shares, for reading the database (queryDatabase). */
  readonly env: Record<string, string>
  /** Exits nobody asked for. */
  readonly exits: Exit[]
  stop(): Promise<void>
}

type Child = ServerProcess | Awaited<ReturnType<typeof startWorker>>

export async function startCluster(topology: Topology, extra: Record<string, string> = {}): Promise<Cluster> {
  const dataDir = topology.kind === 'embedded' ? null : tempDir('automaton-faults-')
  const env: Record<string, string> = {
    AUTOMATON_DATA_DIR: topology.kind === 'embedded' ? topology.dataDir : dataDir!.path,
    AUTOMATON_DATABASE_URL: topology.kind === 'embedded' ? '' : topology.databaseUrl,
    AUTOMATON_NATS_URL: topology.kind === 'api-workers' ? topology.natsUrl : '',
    AUTOMATON_BOOTSTRAP_KEY: KEY,
    AUTOMATON_MASTER_KEY: MASTER_KEY,
    AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    AUTOMATON_SITUATION_UNIVERSE: 'off',
    AUTOMATON_PG_POOL_SIZE: '6',
    AUTOMATON_LOG_LEVEL: 'info',
    ...extra,
  }
  const exits: Exit[] = []
  const procs: Proc[] = []
  const managed = (name: string, role: 'serve' | 'worker', launch: () => Promise<{ child: Child; url: string }>) => {
    let current!: { child: Child; url: string }
    let expected = false
    const watch = (c: Child) =>
      void c.exited.then((code) => {
        if (!expected && current.child === c) exits.push({ name, code, at: Date.now(), logs: c.logs().slice(-3000) })
      })
    const proc: Proc = {
      name,
      role,
      url: () => current.url,
      pid: () => current.child.pid,
      logs: () => current.child.logs(),
      signal(signal) {
        if (signal === 'SIGKILL' || signal === 'SIGTERM') expected = true
        process.kill(current.child.pid, signal)
      },
      async restart() {
        expected = true
        await current.child.stop('SIGKILL')
        current = await launch()
        expected = false
        watch(current.child)
      },
    }
    return {
      proc,
      async start() {
        current = await launch()
        watch(current.child)
        procs.push(proc)
        return proc
      },
      async stop() {
        expected = true
        await current?.child.stop('SIGKILL')
      },
    }
  }
  const serve = (name: string) =>
    managed(name, 'serve', async () => {
      const child = await startServer({ env, timeoutMs: 60_000 })
      return { child, url: child.url }
    })
  const worker = (name: string) =>
    managed(name, 'worker', async () => {
      const port = await freePort()
      const child = await startWorker({ ...env, AUTOMATON_WORKER_PORT: String(port) }, 60_000)
      return { child, url: `http://127.0.0.1:${port}` }
    })

  const apis =
    topology.kind === 'serve-pair'
      ? [serve('serve-1'), serve('serve-2')]
      : [serve(topology.kind === 'embedded' ? 'embedded' : 'api')]
  const workers =
    topology.kind === 'api-workers' ? Array.from({ length: topology.workers }, (_, i) => worker(`worker-${i + 1}`)) : []
  const stopAll = async () => {
    for (const m of [...apis, ...workers]) await m.stop().catch(() => {})
    dataDir?.remove()
  }
  try {
    // The first process migrates the database; the others start once it has.
    await apis[0].start()
    await Promise.all([...apis.slice(1), ...workers].map((m) => m.start()))
  } catch (error) {
    await stopAll()
    throw error
  }
  return {
    apis: apis.map((m) => m.proc),
    workers: workers.map((m) => m.proc),
    all: procs,
    env,
    exits,
    stop: stopAll,
  }
}

/** Creates and publishes a workflow of these nodes (trigger `root`); answers its id and webhook secret. */
export async function publish(base: string, name: string, nodes: Record<string, unknown>) {
  const created = await api(base, 'POST', '/v1/workflows', KEY, {
    name,
    definition: { triggerNodeIds: ['root'], nodes },
  })
  if (created.status !== 200) throw new Error(`could not create workflow ${name}: ${JSON.stringify(created.body)}`)
  const live = await api(base, 'POST', `/v1/workflows/${created.body.data.id}/publish`, KEY)
  if (live.status !== 200) throw new Error(`could not publish workflow ${name}: ${JSON.stringify(live.body)}`)
  return live.body.data as { id: string; triggerSecret: string }
}
