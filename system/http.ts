import { type App, createApp } from '../core/http/app.ts'
import { createRunOutputs } from '../core/services/run-outputs.ts'
import { createOperatorCheck } from '../core/services/templates.ts'
import type { Engine } from '../runtime/index.ts'
import { createStreamHub } from '../runtime/streams.ts'
import { isBun, VERSION } from './platform.ts'
import type { Access, Adapters, NodeServices, Services } from './types.ts'

/** The HTTP app over every service; streams of runs and feeds fan out from the bus. */
export async function createHttpApp(
  base: Adapters,
  engine: Engine,
  services: Access & NodeServices & Services,
): Promise<App> {
  const { config, logger, clock, store, bus } = base
  const pushBody = isBun ? (await import('../adapters/bun/push-body.ts')).bunPushBody : undefined
  const streams = {
    hub: createStreamHub({ store, bus, logger }),
    heartbeatMs: config.sseHeartbeatMs,
    maxBufferedBytes: config.sseBufferBytes,
    pushBody,
    runAppearWaitMs: config.sseRunWaitMs,
    maxStreamsPerCaller: config.sseMaxStreamsPerKey,
    clock,
  }
  const operator = createOperatorCheck({ store, clock, operatorOrganization: config.operatorOrganization })
  return createApp({
    ...services,
    version: VERSION,
    maxBodyBytes: config.maxBodyBytes,
    logger,
    ids: base.ids,
    store,
    bus,
    isOperator: operator.isOperator,
    streams,
    runOutputs: createRunOutputs({ store, hub: streams.hub, clock, projection: engine.projection }),
    registry: base.registry,
    trustedProxies: config.trustedProxies,
    backlog: engine.backlog,
    metrics: base.metrics,
    metricsToken: config.metricsToken,
    audit: base.audit,
  })
}
