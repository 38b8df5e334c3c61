/**
 * The composition root's system: picks the adapters the configuration names (SQLite or Postgres,
 * the in-process bus or NATS, Prometheus, OpenTelemetry, viem), loads the plugins, builds the
 * services and the HTTP app. Only this folder and main.ts know every layer.
 *
 * The system is built first and started after: adapters and plugins (adapters.ts), access
 * (access.ts), what nodes call (nodes.ts), the engine (engine.ts), the services (services.ts), the
 * app (http.ts); then hook delivery, the engine, the pruner and the x402 reconciler start
 * (lifecycles.ts), once everything they may call exists. Resource lifetimes are an Effect scope:
 * whatever was opened is closed in reverse order, on a normal exit, on SIGINT/SIGTERM, and when
 * start-up fails half way.
 */
import { Effect, Exit, Scope } from 'effect'
import type { Config } from '../core/config.ts'
import { createEventRecorder } from '../runtime/event-recorder.ts'
import type { Own, System, SystemOptions } from './types.ts'
import { openAccess } from './access.ts'
import { openAdapters } from './adapters.ts'
import { createEngineOf } from './engine.ts'
import { createHttpApp } from './http.ts'
import { startLifecycles } from './lifecycles.ts'
import { createNodeServices } from './nodes.ts'
import { createServices } from './services.ts'
import { seedStarterTemplates } from '../core/services/starter-templates.ts'

/**
 * Opens the store and bus, applies migrations, builds services and the HTTP app, then starts
 * what runs on its own.
 *
 * This runs as plain async code, not inside an Effect fiber: a fiber's async context would
 * follow every request and run callback (Bun carries it through each promise), which cost a
 * third of the webhook throughput when measured. Effect owns the lifetimes instead: each
 * release is a finalizer of a Scope that closes them in reverse order.
 */
async function acquireSystem(config: Config, options: SystemOptions, own: Own): Promise<Omit<System, 'close'>> {
  const base = await openAdapters(config, options, own)
  // One recorder of journal events for the engine and the services that record workflow events.
  const recorder = createEventRecorder()
  const access = await openAccess(base, recorder, own)
  const nodes = createNodeServices(base)
  // The one cycle: an agent run's `automaton-api` tool calls the API in process, and the API
  // starts runs on the engine. The recorder and the engine reach the agent service, and the agent
  // service the app, through functions of constants declared below them; none is called before
  // the lifecycles start, when all exist (as the engine's dispatcher reaches its executor).
  recorder.listen((tx, events) => services.agents.onRecorded(tx, events))
  const engine = createEngineOf(base, recorder, nodes, {
    call: (runId, organizationId, request) => services.agents.call(runId, organizationId, request),
  })
  // Worker sessions call the API in process, through the same handler as any client.
  const services = createServices(base, engine, access, nodes, (request) => app.handle(request))
  const app = await createHttpApp(base, engine, { ...access, ...nodes, ...services })
  // A fresh installation's template gallery is not empty (once; AUTOMATON_STARTER_TEMPLATES=false: never).
  await seedStarterTemplates({
    store: base.store,
    clock: base.clock,
    logger: base.logger,
    organizations: access.organizations,
    templates: services.templates,
    operatorOrganization: base.config.operatorOrganization,
    enabled: base.config.starterTemplates,
  })
  const background = await startLifecycles(base, options, engine, services, own)
  return { ...base, ...access, ...nodes, ...services, engine, app, ...background }
}

/** Opens a system for a test or a command; `close()` releases everything it opened, in reverse order. */
export async function openSystem(config: Config, options: SystemOptions = {}): Promise<System> {
  const scope = Scope.makeUnsafe()
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  const own: Own = async (acquire, release) => {
    const value = await acquire()
    Effect.runSync(
      Scope.addFinalizer(
        scope,
        Effect.promise(async () => release(value)),
      ),
    )
    return value
  }
  try {
    return { ...(await acquireSystem(config, options, own)), close }
  } catch (error) {
    await close()
    throw error
  }
}

export type { System, SystemOptions } from './types.ts'
