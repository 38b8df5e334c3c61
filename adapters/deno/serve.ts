/**
 * Serves the app with Deno.serve, as HTTP or HTTPS. `reloadTls` works as on Bun: a second
 * listener on the same port (reusePort, Linux) with the new certificate, then the first one
 * shuts down gracefully. Deno.serve cannot swap a certificate in place, and this way has a
 * known fault: Linux spreads new connections over both listeners, and resets those still queued
 * on the old one when it closes, so a client connecting during a reload may see a reset and must
 * retry (the kernel setting net.ipv4.tcp_migrate_req=1 hands them to the new listener instead).
 */
import { setClientAddress } from '../../core/http/request-state.ts'
import type { FetchHandler, HttpServer, ServeOptions, TlsPem } from '../../core/ports/http-server.ts'

interface DenoServer {
  finished: Promise<void>
  shutdown(): Promise<void>
  addr: { port: number }
}

declare const Deno: {
  serve(
    options: {
      port: number
      hostname: string
      onListen?: (addr: { port: number }) => void
      cert?: string
      key?: string
      reusePort?: boolean
    },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>,
  ): DenoServer
}

export function serveWithDeno(fetch: FetchHandler, options: Pick<ServeOptions, 'port' | 'host' | 'tls'>): HttpServer {
  const listen = (port: number, tls: TlsPem | undefined) =>
    Deno.serve(
      {
        port,
        hostname: options.host,
        onListen: () => {},
        ...(tls ? { cert: tls.cert, key: tls.key, reusePort: true } : {}),
      },
      (request, info) => {
        setClientAddress(request, info.remoteAddr.hostname)
        return fetch(request)
      },
    )
  let server = listen(options.port, options.tls)
  const port = server.addr.port
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
      const done = previous.shutdown().then(() => void draining.delete(done))
      draining.add(done)
    },
    async stop() {
      await Promise.all([server.shutdown(), ...draining])
    },
  }
}
