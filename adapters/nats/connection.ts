/**
 * One NATS connection per process, shared by the bus and the work queue; reconnects forever,
 * so a restarted NATS server is picked up again without restarting the process. It does not
 * echo: NATS leaves out what the process published itself, which its bus delivers to it
 * directly (bus.ts).
 */
import { connect, type NatsConnection } from '@nats-io/transport-node'
import type { Logger } from '../../core/ports/logger.ts'

export async function connectNats(url: string, name: string, logger?: Logger): Promise<NatsConnection> {
  const nc = await connect({
    servers: url.split(',').map((s) => s.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    pingInterval: 10_000,
    noEcho: true,
  })
  ;(async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect')
        logger?.warn(`nats ${status.type}`, { server: String((status as { server?: unknown }).server ?? '') })
    }
  })().catch(() => {})
  return nc
}
