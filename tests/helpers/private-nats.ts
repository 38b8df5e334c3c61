/**
 * A NATS server with JetStream of a test's own (never the machine's shared one), which the test
 * may kill with SIGKILL, start again on the same port and store, or wipe: killed, its JetStream
 * store deleted, started again empty, as a lost disk would leave it.
 */
import { existsSync, rmSync } from 'node:fs'
import { startNats } from './process.ts'
import { tempDir } from './tmp.ts'

export interface PrivateNats {
  readonly url: string
  readonly port: number
  /** SIGKILL: no goodbye to clients, nothing flushed beyond what JetStream already wrote. */
  kill(): Promise<void>
  /** Starts it again on the same port and store directory. */
  start(): Promise<void>
  /** Kills it, deletes its JetStream store, and starts it again empty. */
  wipe(): Promise<void>
  /** Kills it and removes its store; safe to call twice. */
  destroy(): Promise<void>
}

/** The installed nats-server, or null (NATS_SERVER_BIN names another). */
export function natsServerBin(): string | null {
  const candidates = [
    process.env.NATS_SERVER_BIN,
    '/usr/sbin/nats-server',
    '/usr/bin/nats-server',
    '/usr/local/bin/nats-server',
  ]
  return candidates.find((p): p is string => Boolean(p) && existsSync(p!)) ?? null
}

export async function startPrivateNats(): Promise<PrivateNats> {
  const store = tempDir('automaton-fault-nats-')
  let server: Awaited<ReturnType<typeof startNats>> | null = await startNats(store.path)
  const port = server.port
  const kill = async () => {
    await server?.stop()
    server = null
  }
  const start = async () => {
    if (!server) server = await startNats(store.path, port)
  }
  return {
    url: server.url,
    port,
    kill,
    start,
    async wipe() {
      await kill()
      rmSync(store.path, { recursive: true, force: true })
      await start()
    },
    async destroy() {
      await kill()
      store.remove()
    },
  }
}
