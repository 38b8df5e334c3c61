/**
 * The engine, assembled: registry checks, plans, the node runner, the executor of live runs,
 * the dispatcher, run control, durable timers, schedules and the run projection. The
 * composition root gives it the ports (store, bus, work queue, clock, ids, HTTP client) and
 * wires its parts into core.
 *
 * Roles: `embedded` does everything in one process; `api` admits runs and hands them to the
 * work queue; `worker` executes runs taken from the work queue and fires timers and schedule
 * ticks. A run is executed only by the worker that owns it (see executor.ts).
 */
import type { Bus } from '../core/ports/bus.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { HttpClient } from '../core/ports/http-client.ts'
import type { Ids } from '../core/ports/ids.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'
import type { WorkConsumer, WorkQueue } from '../core/ports/work-queue.ts'
import type { Registry } from '../core/plugin/registry.ts'
import { runs } from '../core/store/runs.ts'
import {
  type Backlog,
  type BacklogLimits,
  createBacklog,
  executorBacklogSource,
  storeBacklogSource,
} from './backlog.ts'
import { createCapabilities } from './capabilities.ts'
import { createRunControl } from './control.ts'
import { createDefinitionChecker } from './definition/check.ts'
import { createDispatcher, type EngineDispatcher } from './dispatch.ts'
import type { Capabilities } from './engine/capabilities.ts'
import { createExecutor } from './engine/executor.ts'
import { createNodeRunner } from './engine/node-runner.ts'
import { createPlanCache } from './engine/plan.ts'
import { createEventRecorder, type EventRecorder } from './events.ts'
import { createEventRouter } from './integrations/router.ts'
import { createTriggerIndex } from './integrations/trigger-index.ts'
import { runProjection } from './projection.ts'
import { createSandbox } from './sandbox/index.ts'
import { createReconciler } from './schedules/reconcile.ts'
import { createScheduleTicker } from './schedules/scheduler.ts'
import { createDurableTimers } from './timers.ts'
import { createStaleness, createWorkerPresence } from './workers.ts'

import type { SecretMasks } from '../core/security/value-mask.ts'
import type { SecretProps } from '../core/services/secret-props.ts'
import type { Metrics } from '../core/ports/metrics.ts'
import type { Tracing } from '../core/ports/tracing.ts'
import type { CapabilityDeps } from './capabilities.ts'

export type EngineRole = 'embedded' | 'api' | 'worker'

/** Broadcast to every worker: "if you are executing this run, read its inbox". */
export const WAKE_SUBJECT = 'automaton.internal.wake'

export interface EngineDeps {
  store: Store
  bus: Bus
  workQueue: WorkQueue
  clock: Clock
  ids: Ids
  logger: Logger
  registry: Registry
  http: HttpClient
  role: EngineRole
  workerId: string
  host: string
  concurrency: number
  /**
   * The event-loop lag above which the executor keeps fewer runs going (AUTOMATON_EXECUTION_LAG_TARGET_MS;
   * 0 or absent: never). Only where runs share the loop with the server that admits them (embedded):
   * a worker answers no triggers, and keeps its full concurrency.
   */
  lagTargetMs?: number
  /** Runs pure runs to their end at admission (AUTOMATON_FINISH_AT_ADMISSION); on unless false. */
  finishAtAdmission?: boolean
  consecutiveFailuresPause: number
  workerTimeoutMs?: number
  heartbeatMs?: number
  timerPollMs?: number
  /** How late a schedule tick may fire and still be on time (AUTOMATON_SCHEDULE_GRACE_MS). */
  scheduleGraceMs: number
  schedulePollMs?: number
  connector?: Capabilities['connector']
  /** The AI capability of the `ai-prompt` node (and of plugins' `ctx.services.prompt`). */
  ai?: CapabilityDeps['ai']
  /** Imported x402 endpoints, for the `x402-request` node. */
  x402?: CapabilityDeps['x402']
  /** Agent runs' worker sessions, for the `automaton-api` tool. */
  agentApi?: CapabilityDeps['agentApi']
  /** Agent cards' one-time handles, redeemed in outbound requests. */
  cards?: CapabilityDeps['cards']
  /** Bounds runs admitted and not started yet (AUTOMATON_MAX_BACKLOG); without it admission is unbounded. */
  backlog?: BacklogLimits
  /** The event recorder, when the composition root made it first (services record with it too). */
  recorder?: EventRecorder
  /** The organizations' secret values, masked by value in everything a run keeps or sends. */
  masks?: SecretMasks
  /** The sensitive prop values of forked workflows, opened for the nodes that read them. */
  secretProps?: SecretProps
  /** This process's metrics: runs admitted and finished, node executions, journal writes. */
  metrics?: Metrics
  /** Span contexts of runs, and the spans of their nodes and ends. */
  tracing?: Tracing
}

export function createEngine(deps: EngineDeps) {
  const recorder = deps.recorder ?? createEventRecorder()
  const plans = createPlanCache()
  const checker = createDefinitionChecker(deps.registry)
  const executes = deps.role !== 'api'
  // An embedded process executes what it admits, so its executor's queue is the backlog; API and
  // worker processes share theirs through the store.
  const backlog: Backlog | null = deps.backlog
    ? createBacklog({
        limits: deps.backlog,
        clock: deps.clock,
        source:
          deps.role === 'embedded'
            ? executorBacklogSource(() => executor.backlog())
            : storeBacklogSource({ store: deps.store, logger: deps.logger }),
      })
    : null
  // Runs admitted here start in the executor built below (handOff runs only after a commit).
  const dispatcher: EngineDispatcher = createDispatcher({
    backlog: backlog ?? undefined,
    store: deps.store,
    bus: deps.bus,
    clock: deps.clock,
    ids: deps.ids,
    recorder,
    masks: deps.masks,
    metrics: deps.metrics,
    tracing: deps.tracing,
    owner: executes ? deps.workerId : null,
    handOff: executes ? (fresh) => executor.enqueueFresh(fresh) : (fresh) => void notify(fresh.meta.runId),
    // Every process that admits runs pure runs to their end at admission, an API process too: such
    // a run needs nothing a worker has, and ends without the trip to one. Other runs go to the
    // executor (the workers, when scaled out).
    finishAtAdmission: deps.finishAtAdmission !== false ? (...args) => executor.finishAtAdmission(...args) : undefined,
  })
  const sandbox = createSandbox()
  const capabilities = createCapabilities({
    http: deps.http,
    sandbox,
    logger: deps.logger,
    clock: deps.clock,
    dispatcher,
    connector: deps.connector,
    ai: deps.ai,
    x402: deps.x402,
    agentApi: deps.agentApi,
    cards: deps.cards,
  })
  const runner = createNodeRunner({
    registry: deps.registry,
    clock: deps.clock,
    capabilities,
    logger: deps.logger,
    masks: deps.masks,
    secretProps: deps.secretProps,
  })
  const workerTimeoutMs = deps.workerTimeoutMs ?? 15_000
  const staleness = createStaleness({ clock: deps.clock, timeoutMs: workerTimeoutMs })
  const executor = createExecutor({
    store: deps.store,
    bus: deps.bus,
    clock: deps.clock,
    ids: deps.ids,
    logger: deps.logger,
    recorder,
    consecutiveFailuresPause: deps.consecutiveFailuresPause,
    registry: deps.registry,
    runner,
    plans,
    concurrency: deps.concurrency,
    lagTargetMs: deps.role === 'embedded' ? deps.lagTargetMs : 0,
    workerId: deps.workerId,
    workerTimeoutMs,
    metrics: deps.metrics,
    tracing: deps.tracing,
    staleBefore: () => staleness.staleBefore(),
  })
  const notify = (runId: string) =>
    deps.workQueue.notify(runId).catch((error) =>
      deps.logger.warn('could not notify the work queue; the sweep will find the run', {
        runId,
        error: String(error),
      }),
    )

  /** Tells whoever executes a run that it has inbox events (a resume, a timer, a cancel). */
  const wake = (runId: string) => {
    if (deps.role === 'embedded' || executor.has(runId)) return executor.wake(runId)
    deps.bus.publish(WAKE_SUBJECT, { runId })
    void notify(runId)
  }

  /**
   * The work queue lost notifications (its storage was wiped and made again): the runs they named
   * are running and owned by nobody. They are taken now rather than when the sweep finds them
   * old enough (AUTOMATON_WORKER_TIMEOUT_MS); a run still notified is then taken twice, harmlessly.
   */
  const recoverUnnotified = async () => {
    try {
      let woken = 0
      for (const { id } of await runs.unowned(deps.store)) {
        if (executor.has(id)) continue
        executor.wake(id)
        woken++
      }
      if (woken > 0) deps.logger.info('taking runs whose work notifications were lost', { count: woken })
    } catch (error) {
      deps.logger.warn('could not look for runs whose work notifications were lost; the sweep will find them', {
        error: String(error),
      })
    }
  }

  const control = createRunControl({
    store: deps.store,
    bus: deps.bus,
    clock: deps.clock,
    ids: deps.ids,
    wake,
    recorder,
    masks: deps.masks,
  })
  const timers = createDurableTimers({
    store: deps.store,
    bus: deps.bus,
    clock: deps.clock,
    ids: deps.ids,
    logger: deps.logger,
    wake,
    pollMs: deps.timerPollMs,
  })
  const presence = createWorkerPresence({
    store: deps.store,
    clock: deps.clock,
    logger: deps.logger,
    workerId: deps.workerId,
    role: deps.role,
    host: deps.host,
    heartbeatMs: deps.heartbeatMs ?? 3000,
    // One embedded process owns a SQLite file; on Postgres several may share the database.
    exclusive: deps.role === 'embedded' && deps.store.dialect === 'sqlite',
    onBeat: () => executor.sweep(),
    staleness,
  })
  let consumer: WorkConsumer | null = null
  let wakes: { unsubscribe(): void } | null = null
  let losses: { unsubscribe(): void } | null = null
  const reconciler = createReconciler({
    registry: deps.registry,
    clock: deps.clock,
    ids: deps.ids,
    logger: deps.logger,
    dialect: deps.store.dialect,
  })
  const triggerIndex = createTriggerIndex({ dialect: deps.store.dialect, logger: deps.logger })
  // Schedule rows and the live trigger index change in the same transaction as the workflow event that changes them.
  recorder.listen((tx, events) => reconciler.onEvents(tx, events))
  recorder.listen((tx, events) => triggerIndex.onEvents(tx, events))
  const router = createEventRouter({
    backlog: backlog ?? undefined,
    store: deps.store,
    registry: deps.registry,
    dispatcher,
    clock: deps.clock,
    ids: deps.ids,
    logger: deps.logger,
    wake,
    masks: deps.masks,
    recorder,
    bus: deps.bus,
  })
  const schedules = createScheduleTicker({
    store: deps.store,
    bus: deps.bus,
    clock: deps.clock,
    logger: deps.logger,
    dispatcher,
    reconciler,
    graceMs: deps.scheduleGraceMs,
    pollMs: deps.schedulePollMs,
  })

  return {
    wake,
    recorder,
    checker,
    dispatcher,
    control,
    executor,
    timers,
    schedules,
    reconciler,
    triggerIndex,
    router,
    projection: runProjection,
    role: deps.role,
    /** The admission backlog (for /readyz), or null when unbounded. */
    backlog: () => backlog?.report() ?? null,
    /** Runs the executor keeps going at once now (fewer than its concurrency while the event loop lags). */
    concurrencyLimit: () => executor.concurrencyLimit,
    /**
     * Workers: register, recover unfinished runs, take work, fire timers and schedule ticks.
     * The API role does none of it.
     */
    async start() {
      if (!executes) return
      await presence.start()
      const recovered = await executor.sweep()
      if (recovered > 0) deps.logger.info('recovering runs', { count: recovered })
      if (deps.role === 'worker') {
        wakes = deps.bus.subscribe<{ runId: string }>(WAKE_SUBJECT, (m) => {
          if (executor.has(m.data.runId)) executor.wake(m.data.runId)
        })
        consumer = await deps.workQueue.consume((runId) => executor.take(runId), deps.concurrency)
        losses = deps.workQueue.onLoss?.(() => void recoverUnnotified()) ?? null
      }
      timers.start()
      await triggerIndex.backfill(deps.store)
      await schedules.reconcileAll()
      schedules.start()
    },
    async stop(graceMs: number) {
      wakes?.unsubscribe()
      losses?.unsubscribe()
      await consumer?.stop()
      await schedules.stop()
      await timers.stop()
      await executor.stop(graceMs)
      backlog?.stop()
      if (executes) await presence.stop()
      await sandbox.close()
    },
  }
}

export type Engine = ReturnType<typeof createEngine>
