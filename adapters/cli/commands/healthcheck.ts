/**
 * `healthcheck`: one request to this host's own process, for a container's health check or a
 * supervisor's probe. Liveness (`/healthz`) by default; `--ready` asks `/readyz`, which is 503
 * while a dependency is down. A certificate of its own (TLS on) is not checked: the call is local.
 */
import process from 'node:process'
import type { Command } from '../host.ts'

export const healthcheck: Command = async ({ config, flags }) => {
  const port = config.workerPort ?? config.port
  const scheme = config.tlsCertFile ? 'https' : 'http'
  const url = flags.url ?? `${scheme}://127.0.0.1:${port}${flags.ready ? '/readyz' : '/healthz'}`
  try {
    const response = await fetch(url, {
      signal: AbortSignal.timeout(5000),
      tls: { rejectUnauthorized: false },
    } as RequestInit)
    const body = await response.text()
    process.stdout.write(`${response.status} ${body.slice(0, 500)}\n`)
    return response.ok ? 0 : 1
  } catch (error) {
    process.stderr.write(
      `automaton healthcheck: ${url} did not answer: ${error instanceof Error ? error.message : String(error)}\n`,
    )
    return 1
  }
}
