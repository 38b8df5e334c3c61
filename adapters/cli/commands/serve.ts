/** `serve`: the API until SIGINT or SIGTERM, then a graceful stop: the server first, then the rest in reverse order. */
import { Effect } from 'effect'
import type { HttpServer } from '../../../core/ports/http-server.ts'
import type { Command } from '../host.ts'
import { logStrayRejections, untilSignal } from '../io.ts'
import { listen, reloadTlsOnHangup } from './http.ts'

export const serve: Command = async ({ config, host }) => {
  const system = await host.openSystem(config)
  logStrayRejections(system.logger)
  let server: HttpServer
  try {
    server = await listen(host, system)
  } catch (error) {
    await system.close()
    throw error
  }
  const stopReloading = server.secure ? reloadTlsOnHangup(system, server) : () => {}
  system.logger.info('automaton is serving', {
    port: server.port,
    version: host.version,
    runtime: host.runtime,
    store: system.store.dialect,
    bus: config.natsUrl ? 'nats' : 'in-process',
    role: system.engine.role,
    scheme: server.secure ? 'https' : 'http',
  })
  await untilSignal()
  stopReloading()
  const stopServer = Effect.promise(() => server.stop(true)).pipe(Effect.timeout(config.shutdownGraceMs), Effect.ignore)
  await Effect.runPromise(stopServer)
  await system.close()
  system.logger.info('automaton stopped')
  return 0
}
