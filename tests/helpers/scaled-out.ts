/**
 * Scaled out, as real processes: an API process and its workers on a fresh Postgres database and
 * a NATS server of a describe block's own, started before its tests, killed and cleaned up after
 * them.
 */
import { afterAll, beforeAll } from 'bun:test'
import { type ServerProcess, startNats, startServer, startWorker } from './process.ts'
import { freshPostgresUrl } from './services.ts'
import { tempDir } from './tmp.ts'

export type WorkerProcess = Awaited<ReturnType<typeof startWorker>>
export type NatsServer = Awaited<ReturnType<typeof startNats>>

/** A test that kills a process and starts another assigns the new one here: it is then the one killed after. */
export interface ScaledOut {
  api: ServerProcess
  workers: WorkerProcess[]
  nats: NatsServer
  /** Where NATS keeps its streams, for a restart on the same data (and port). */
  readonly natsDir: string
  /** The environment the processes share, for starting more of them and for reading the database (queryDatabase). */
  env: Record<string, string>
}

/**
 * Starts the API and `workers` workers. They may call servers on 127.0.0.1 (a test's receiver),
 * and a killed worker's runs are taken over within two seconds. `settings` add to their
 * environment; they are asked for after the hooks the block registered before this call, so they
 * may name a server those started.
 */
export function scaledOut(bootstrapKey: string, workers: number, settings: () => Record<string, string>): ScaledOut {
  const dir = tempDir()
  const natsDir = tempDir('automaton-nats-')
  let drop: (() => Promise<void>) | undefined
  // The API and NATS are there from the block's first hook on.
  const cluster = { workers: [], natsDir: natsDir.path, env: {} } as unknown as ScaledOut
  beforeAll(async () => {
    cluster.nats = await startNats(natsDir.path)
    const pg = await freshPostgresUrl()
    drop = pg.drop
    cluster.env = {
      AUTOMATON_DATA_DIR: dir.path,
      AUTOMATON_DATABASE_URL: pg.url,
      AUTOMATON_NATS_URL: cluster.nats.url,
      AUTOMATON_BOOTSTRAP_KEY: bootstrapKey,
      AUTOMATON_MASTER_KEY: btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))),
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      AUTOMATON_WORKER_TIMEOUT_MS: '2000',
      AUTOMATON_HEARTBEAT_MS: '300',
      ...settings(),
    }
    cluster.api = await startServer({ env: cluster.env })
    for (let i = 0; i < workers; i++) cluster.workers.push(await startWorker(cluster.env))
  }, 60_000)
  afterAll(async () => {
    await cluster.api?.stop('SIGKILL')
    for (const w of cluster.workers) await w.stop('SIGKILL')
    await cluster.nats?.stop()
    await drop?.()
    dir.remove()
    natsDir.remove()
  })
  return cluster
}
