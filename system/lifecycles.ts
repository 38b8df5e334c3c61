import { createGuardedHttpClient } from '../adapters/http/guarded-client.ts'
import { createHookDelivery } from '../runtime/hooks/index.ts'
import { createAuditShipper } from '../runtime/hooks/audit-file.ts'
import { createAuditEndpointShipper } from '../runtime/hooks/audit-endpoint.ts'
import { openAuditFile } from '../adapters/files/audit-file.ts'
import type { Engine } from '../runtime/index.ts'
import { createPruner } from '../runtime/retention.ts'
import { VERSION } from './platform.ts'
import type { Adapters, Own, Services, System, SystemOptions } from './types.ts'
import { hookPolicyOf } from './services.ts'

/**
 * Starts what runs on its own, in this order: hook delivery before the engine (so the events of
 * recovered runs reach the outbox too; it stops after the engine), the pruner where runs execute
 * (an API process leaves it to its workers), the search indexes, and the x402 reconciler.
 */
export async function startLifecycles(
  base: Adapters,
  options: SystemOptions,
  engine: Engine,
  services: Services,
  own: Own,
): Promise<Pick<System, 'hooks' | 'pruner'>> {
  const { config, logger, clock, ids, store, bus } = base
  const pruner = createPruner({
    store,
    clock,
    logger,
    defaultRetentionMs: config.runRetentionMs,
    intervalMs: config.pruneIntervalMs,
    audit: { log: base.audit, retentionMs: config.auditRetentionMs, keepUndelivered: config.auditEndpoint !== null },
  })
  const hooks =
    options.engine === false
      ? null
      : createHookDelivery({
          // Hooks send many requests to few hosts: their client keeps connections open.
          store,
          bus,
          clock,
          ids,
          logger,
          http: options.http ?? createGuardedHttpClient({ allow: config.allowPrivateTargets, logger, keepAlive: true }),
          secretBox: base.secretBox,
          policy: hookPolicyOf(config),
          schedule: config.hookRetrySchedule,
          concurrency: config.hookConcurrency,
          timeoutMs: config.hookTimeoutMs,
          pollMs: config.hookPollMs,
          userAgent: `Automaton-Webhooks/${VERSION}`,
          metrics: base.metrics,
          // Deliveries are sent where runs execute.
          sends: engine.role !== 'api',
        })
  if (hooks) {
    // Every process that records run events writes their deliveries (the API role records run.started).
    engine.recorder.listen(hooks.outbox)
    await own(
      () => hooks.start(),
      () => hooks.stop(config.shutdownGraceMs),
    )
    // Audit records go to their file from the process that sends hooks (AUTOMATON_AUDIT_FILE).
    if (config.auditFile && engine.role !== 'api') {
      const shipper = createAuditShipper({
        store,
        sink: openAuditFile(config.auditFile),
        logger,
        pollMs: config.hookPollMs,
      })
      await own(
        async () => shipper.start(),
        () => shipper.stop(),
      )
    }
    // And to the SIEM's endpoint, signed like execution hooks (AUTOMATON_AUDIT_ENDPOINT).
    if (config.auditEndpoint && engine.role !== 'api') {
      const shipper = await createAuditEndpointShipper({
        store,
        clock,
        logger,
        http: options.http ?? createGuardedHttpClient({ allow: config.allowPrivateTargets, logger }),
        url: config.auditEndpoint,
        secret: config.auditEndpointSecret,
        policy: hookPolicyOf(config),
        pollMs: config.hookPollMs,
        timeoutMs: config.hookTimeoutMs,
        userAgent: `Automaton-Audit/${VERSION}`,
        owner: crypto.randomUUID(),
      })
      await own(
        async () => shipper.start(),
        () => shipper.stop(),
      )
    }
    await own(
      () => engine.start(),
      () => engine.stop(config.shutdownGraceMs),
    )
    if (engine.role !== 'api')
      await own(
        () => pruner.start(),
        () => pruner.stop(),
      )
  }
  await services.universe.ensureLoaded()
  await services.templates.ensureSearchIndex(logger)
  // Settlements left unfinished by a timeout or a killed process are finished from the chain's state.
  if (base.chains.list().length > 0)
    await own(
      async () => services.x402.startReconciler(),
      (stop) => stop(),
    )
  return { hooks, pruner }
}
