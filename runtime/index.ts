/**
 * The engine, assembled: registry checks, plans, the node runner, the executor of live runs,
 * the dispatcher, run control, durable timers, schedules and the run projection. The composition root
 * gives it the ports (store, bus, clock, ids, HTTP client) and wires its parts into core.
 */
import type { Bus } from '../core/ports/bus.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { HttpClient } from '../core/ports/http-client.ts'
import type { Ids } from '../core/ports/ids.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'
import type { Registry } from '../core/plugin/registry.ts'
import { createCapabilities } from './capabilities.ts'
import { createRunControl } from './control.ts'
import { createDefinitionChecker } from './definition/check.ts'
import { createDispatcher, type EngineDispatcher } from './dispatch.ts'
import type { Capabilities } from './engine/capabilities.ts'
import { createExecutor } from './engine/executor.ts'
import { createNodeRunner } from './engine/node-runner.ts'
import { createPlanCache } from './engine/plan.ts'
import { createEventRecorder } from './events.ts'
import { runProjection } from './projection.ts'
import { createSandbox } from './sandbox/index.ts'
import { createReconciler } from './schedules/reconcile.ts'
import { createScheduler } from './schedules/scheduler.ts'
import { createTimerScheduler } from './timers.ts'

export interface EngineDeps {
  store: Store
  bus: Bus
  clock: Clock
  ids: Ids
  logger: Logger
  registry: Registry
  http: HttpClient
  concurrency: number
  consecutiveFailuresPause: number
  timerPollMs?: number
  /** How late a schedule tick may fire and still be on time (AUTOMATON_SCHEDULE_GRACE_MS). */
  scheduleGraceMs: number
  schedulePollMs?: number
  connector?: Capabilities['connector']
}

export function createEngine(deps: EngineDeps) {
  const recorder = createEventRecorder()
  const plans = createPlanCache()
  const checker = createDefinitionChecker(deps.registry)
  let dispatcher: EngineDispatcher | undefined
  const sandbox = createSandbox()
  const capabilities = createCapabilities({
    http: deps.http,
    sandbox,
    logger: deps.logger,
    dispatcher: () => dispatcher!,
    connector: deps.connector,
  })
  const runner = createNodeRunner({ registry: deps.registry, clock: deps.clock, capabilities, logger: deps.logger })
  const executor = createExecutor({
    store: deps.store, bus: deps.bus, clock: deps.clock, ids: deps.ids, logger: deps.logger, recorder,
    consecutiveFailuresPause: deps.consecutiveFailuresPause, registry: deps.registry, runner, plans, concurrency: deps.concurrency,
  })
  dispatcher = createDispatcher({ store: deps.store, bus: deps.bus, clock: deps.clock, ids: deps.ids, recorder, executor })
  const wake = (runId: string) => executor.wake(runId)
  const control = createRunControl({ store: deps.store, bus: deps.bus, clock: deps.clock, ids: deps.ids, wake })
  const timers = createTimerScheduler({ store: deps.store, bus: deps.bus, clock: deps.clock, ids: deps.ids, logger: deps.logger, wake, pollMs: deps.timerPollMs })
  const reconciler = createReconciler({ registry: deps.registry, clock: deps.clock, ids: deps.ids, logger: deps.logger, dialect: deps.store.dialect })
  // Schedule rows change in the same transaction as the workflow event that changes them.
  recorder.listen((tx, events) => reconciler.onEvents(tx, events))
  const schedules = createScheduler({
    store: deps.store, bus: deps.bus, clock: deps.clock, logger: deps.logger, dispatcher, reconciler,
    graceMs: deps.scheduleGraceMs, pollMs: deps.schedulePollMs,
  })

  return {
    /** Tells whoever executes runs that a run has inbox events (a resume, a timer, a cancel). */
    wake,
    recorder,
    checker,
    dispatcher,
    control,
    executor,
    timers,
    schedules,
    reconciler,
    projection: runProjection,
    /** Recovers unfinished runs and starts firing timers and schedule ticks. */
    async start() {
      const recovered = await executor.recover()
      if (recovered > 0) deps.logger.info('recovering runs', { count: recovered })
      timers.start()
      await schedules.reconcileAll()
      schedules.start()
    },
    async stop(graceMs: number) {
      await schedules.stop()
      await timers.stop()
      await executor.stop(graceMs)
      await sandbox.close()
    },
  }
}

export type Engine = ReturnType<typeof createEngine>
