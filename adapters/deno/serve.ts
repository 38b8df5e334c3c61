/** Serves the app with Deno.serve. */
import { setClientAddress } from '../../core/http/request-state.ts'
import type { FetchHandler, HttpServer } from '../../core/ports/http-server.ts'

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen?: (addr: { port: number }) => void },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>,
  ): { finished: Promise<void>; shutdown(): Promise<void>; addr: { port: number } }
}

export function serveWithDeno(fetch: FetchHandler, options: { port: number; host: string }): HttpServer {
  const server = Deno.serve({ port: options.port, hostname: options.host, onListen: () => {} }, (request, info) => {
    setClientAddress(request, info.remoteAddr.hostname)
    return fetch(request)
  })
  return {
    port: server.addr.port,
    async stop() {
      await server.shutdown()
    },
  }
}
