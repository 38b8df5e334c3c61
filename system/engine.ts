import { hostname } from 'node:os'
import { createSecretProps } from '../core/services/secret-props.ts'
import type { EventRecorder } from '../runtime/event-recorder.ts'
import { createEngine, type Engine, type EngineDeps } from '../runtime/index.ts'
import type { Adapters, NodeServices } from './types.ts'

/** The engine of this process's role, over the adapters and what nodes call. */
export function createEngineOf(
  base: Adapters,
  recorder: EventRecorder,
  nodes: NodeServices,
  agentApi: EngineDeps['agentApi'],
): Engine {
  const { config, logger, clock, ids, store, secretBox, metrics } = base
  const engine = createEngine({
    store,
    bus: base.bus,
    workQueue: base.workQueue,
    clock,
    ids,
    logger,
    registry: base.registry,
    http: base.http,
    role: base.role,
    workerId: ids.next('wkr'),
    host: hostname(),
    concurrency: config.workerConcurrency,
    lagTargetMs: config.executionLagTargetMs,
    finishAtAdmission: config.finishAtAdmission,
    consecutiveFailuresPause: config.consecutiveFailuresPause,
    workerTimeoutMs: config.workerTimeoutMs,
    heartbeatMs: config.heartbeatMs,
    scheduleGraceMs: config.scheduleGraceMs,
    pollMinIntervalMs: config.pollMinIntervalMs,
    secretBox,
    publicUrl: config.publicUrl,
    connector: nodes.connectors.resolve,
    backlog: { max: config.maxBacklog, orgSharePercent: config.maxBacklogOrgShare },
    fairShareLine: config.fairShareLine,
    recorder,
    masks: nodes.masks,
    secretProps: createSecretProps({ store, secretBox, clock, logger }),
    ai: nodes.ai,
    x402: nodes.x402Endpoints,
    metrics,
    tracing: base.tracing,
    agentApi,
    cards: {
      redeem: (organizationId, runId, handle, hosts) => nodes.cards.redeem(organizationId, runId, handle, hosts),
    },
  })
  metrics.sample(metrics.admissionBacklog, () => engine.backlog()?.total)
  metrics.sample(metrics.executorConcurrency, () => engine.concurrencyLimit())
  return engine
}
