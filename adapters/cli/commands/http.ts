/** Serving the app for `serve` and `worker`: TLS from files, a worker's few paths, SIGHUP reloads. */
import process from 'node:process'
import { readFileSync } from 'node:fs'
import { type Config, ConfigError } from '../../../core/config.ts'
import { routable } from '../../../core/http/request-state.ts'
import type { HttpServer, TlsPem } from '../../../core/ports/http-server.ts'
import type { CliHost, ServingSystem as CliSystem } from '../host.ts'

/** The PEM files of AUTOMATON_TLS_CERT_FILE and AUTOMATON_TLS_KEY_FILE; undefined when HTTPS is off. */
function readTls(config: Config): TlsPem | undefined {
  if (!config.tlsCertFile && !config.tlsKeyFile) return undefined
  if (!config.tlsCertFile || !config.tlsKeyFile)
    throw new ConfigError('HTTPS needs both AUTOMATON_TLS_CERT_FILE and AUTOMATON_TLS_KEY_FILE')
  try {
    return { cert: readFileSync(config.tlsCertFile, 'utf8'), key: readFileSync(config.tlsKeyFile, 'utf8') }
  } catch (error) {
    throw new ConfigError(`cannot read the TLS certificate or key: ${(error as Error).message}`)
  }
}

/** Serves the app on PORT (or `options.port`), or only the paths in `options.only`. */
export async function listen(
  host: CliHost,
  system: CliSystem,
  options: { port?: number; only?: readonly string[] } = {},
): Promise<HttpServer> {
  const { config, app } = system
  const port = options.port ?? config.port
  // A short Host header must not hide the routes (see routable).
  const fetch = options.only
    ? (request: Request) => {
        const path = new URL(request.url).pathname
        if (options.only!.includes(path)) return app.fetch(routable(request))
        return Response.json(
          { code: 404, message: `a worker answers only ${options.only!.join(', ')}`, details: [], requestId: '' },
          { status: 404 },
        )
      }
    : (request: Request) => app.fetch(routable(request))
  return host.listen(fetch, { port, host: config.host, maxBodyBytes: config.maxBodyBytes, tls: readTls(config) })
}

/** SIGHUP reads the certificate files again; a file that cannot be used leaves the served one in place. */
export function reloadTlsOnHangup(system: CliSystem, server: HttpServer): () => void {
  const onHangup = () => {
    Promise.resolve()
      .then(() => server.reloadTls(readTls(system.config)!))
      .then(
        () => system.logger.info('reloaded the TLS certificate', { certFile: system.config.tlsCertFile }),
        (error) =>
          system.logger.error('could not reload the TLS certificate; still serving the previous one', {
            error: (error as Error).message,
          }),
      )
  }
  process.on('SIGHUP', onHangup)
  return () => process.off('SIGHUP', onHangup)
}
