/** `worker`: executes runs from the work queue and fires timers until SIGINT or SIGTERM. */
import { ConfigError } from '../../../core/config.ts'
import type { HttpServer } from '../../../core/ports/http-server.ts'
import type { Command } from '../host.ts'
import { logStrayRejections, untilSignal } from '../io.ts'
import { listen } from './http.ts'

export const worker: Command = async ({ config, host }) => {
  if (!config.natsUrl)
    throw new ConfigError(
      'automaton worker needs AUTOMATON_NATS_URL and AUTOMATON_DATABASE_URL; without them, serve runs the workers itself',
    )
  const system = await host.openSystem(config, { role: 'worker' })
  logStrayRejections(system.logger)
  // A worker serves no API; with AUTOMATON_WORKER_PORT it answers its health and metrics there.
  let server: HttpServer | null = null
  if (config.workerPort !== null) {
    try {
      server = await listen(host, system, { port: config.workerPort, only: ['/healthz', '/readyz', '/metrics'] })
    } catch (error) {
      await system.close()
      throw error
    }
  }
  system.logger.info('automaton worker is running', {
    version: host.version,
    runtime: host.runtime,
    store: system.store.dialect,
    bus: 'nats',
    port: server?.port ?? null,
  })
  await untilSignal()
  await server?.stop()
  await system.close()
  system.logger.info('automaton worker stopped')
  return 0
}
