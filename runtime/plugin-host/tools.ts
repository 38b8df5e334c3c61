/**
 * What the host hands every plugin handler outside a run (polls, subscription lifecycle, option
 * loaders, connector checks): the guarded HTTP client bound to the call's signal, the crypto
 * toolbox, a log and the clock; and the trigger's connector, opened as a node's would be.
 */
import type { OpenedConnector } from '../../core/domain/connector.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { HttpClient } from '../../core/ports/http-client.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { HandlerTools } from '../../core/plugin/lifecycle.ts'
import { pluginCrypto } from '../../core/plugin/webhook-crypto.ts'

/** Opens an organization's connector for a handler: by reference, of the type the definition requires. */
export type OpenConnector = (
  organizationId: string,
  ref: { type?: string; id?: string } | undefined,
  requiredType: string,
) => Promise<OpenedConnector>

export interface PluginHostDeps {
  http: HttpClient
  clock: Clock
  logger: Logger
  /** Absent in a process that holds no connectors: a handler needing one fails with a message. */
  openConnector?: OpenConnector
}

/** The tools of one handler call, aborted with `signal`; its log lines carry `fields`. */
export function handlerTools(deps: PluginHostDeps, signal: AbortSignal, fields: Record<string, unknown>): HandlerTools {
  const log = deps.logger.child(fields)
  return {
    http: {
      async send(request) {
        const response = await deps.http.send({ ...request, signal })
        return {
          status: response.status,
          headers: response.headers,
          body: response.body,
          truncated: response.truncated,
          durationMs: response.durationMs,
        }
      },
    },
    crypto: pluginCrypto,
    log: (message, extra) => log.info(message, extra),
    now: () => deps.clock.now(),
    signal,
  }
}

/** The decrypted data of the connector a trigger needs, or null when its definition needs none. */
export async function connectorFor(
  deps: PluginHostDeps,
  organizationId: string,
  required: { type: string } | null | undefined,
  ref: { type?: string; id?: string } | undefined,
): Promise<Readonly<Record<string, unknown>> | null> {
  if (!required) return null
  if (!deps.openConnector) throw new Error(`this trigger needs a ${required.type} connector, and this process has none`)
  return (await deps.openConnector(organizationId, ref, required.type)).data
}

/** A signal aborted after `ms` or with `parent`, whichever is first. */
export function deadline(ms: number, parent?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(ms)
  return parent ? AbortSignal.any([parent, timeout]) : timeout
}
