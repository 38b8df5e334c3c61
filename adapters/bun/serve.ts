/** Serves the app with Bun.serve. */
import { setClientAddress } from '../../core/http/request-state.ts'
import type { FetchHandler, HttpServer } from '../../core/ports/http-server.ts'

export function serveWithBun(fetch: FetchHandler, options: { port: number; host: string; maxBodyBytes: number }): HttpServer {
  const server = Bun.serve({
    port: options.port,
    hostname: options.host,
    // The app answers 413 itself with the error body; this is only a backstop far above it.
    maxRequestBodySize: Math.max(options.maxBodyBytes * 8, 16 * 1024 * 1024),
    idleTimeout: 120,
    fetch(request, srv) {
      setClientAddress(request, srv.requestIP(request)?.address)
      return fetch(request)
    },
  })
  return {
    port: server.port ?? options.port,
    async stop(graceful = true) {
      await server.stop(!graceful)
    },
  }
}
