/**
 * Serves the app with Bun.serve, as HTTP or HTTPS.
 *
 * A new certificate cannot be swapped into a running Bun server, so `reloadTls` opens a second
 * listener on the same port (SO_REUSEPORT) with the new certificate, then stops the first one
 * gracefully: new connections get the new certificate, none is refused, open ones finish.
 */
import { setClientAddress } from '../../core/http/request-state.ts'
import type { FetchHandler, HttpServer, ServeOptions, TlsPem } from '../../core/ports/http-server.ts'

export function serveWithBun(fetch: FetchHandler, options: ServeOptions): HttpServer {
  const listen = (port: number, tls: TlsPem | undefined) =>
    Bun.serve({
      port,
      hostname: options.host,
      // The app answers 413 itself with the error body; this is only a backstop far above it.
      maxRequestBodySize: Math.max(options.maxBodyBytes * 8, 16 * 1024 * 1024),
      idleTimeout: 120,
      ...(tls ? { tls: { cert: tls.cert, key: tls.key }, reusePort: true } : {}),
      fetch(request, srv) {
        setClientAddress(request, srv.requestIP(request)?.address)
        return fetch(request)
      },
    })
  let server = listen(options.port, options.tls)
  const port = server.port ?? options.port
  const draining = new Set<Promise<void>>()
  return {
    port,
    secure: options.tls !== undefined,
    async reloadTls(tls) {
      if (!options.tls)
        throw new Error(
          'this server answers plain HTTP; set AUTOMATON_TLS_CERT_FILE and AUTOMATON_TLS_KEY_FILE and restart',
        )
      const next = listen(port, tls)
      const previous = server
      server = next
      const done = previous.stop(false).then(() => void draining.delete(done))
      draining.add(done)
    },
    async stop(graceful = true) {
      await Promise.all([server.stop(!graceful), ...draining])
    },
  }
}
