/**
 * The engine, assembled: registry checks, plans, the node runner, the executor of live runs,
 * the dispatcher, run control, durable timers, schedules and the run projection. The
 * composition root gives it the ports (store, bus, work queue, clock, ids, HTTP client) and
 * wires its parts into core.
 *
 * Roles: `embedded` does everything in one process; `api` admits runs and hands them to the
 * work queue; `worker` executes runs taken from the work queue and fires timers and schedule
 * ticks. A run is executed only by the worker that owns it (see executor.ts).
 *
 * The engine's contract (Engine) and its parts' are in engine/types.ts; waking runs and the
 * engine's start and stop are in engine-waking.ts and engine-lifecycle.ts.
 */
import type { Bus } from '../core/ports/bus.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { HttpClient } from '../core/ports/http-client.ts'
import type { Ids } from '../core/ports/ids.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'
import type { WorkQueue } from '../core/ports/work-queue.ts'
import type { Registry } from '../core/plugin/registry.ts'
import type { SecretBox } from '../core/ports/secret-box.ts'
import {
  type BacklogLimits,
  type BacklogSource,
  createBacklog,
  executorBacklogSource,
  storeBacklogSource,
} from './backlog.ts'
import { createCapabilities } from './host-capabilities.ts'
import { createRunControl } from './control.ts'
import { createDefinitionChecker } from './definition/check.ts'
import { createDispatcher } from './dispatch.ts'
import type { Capabilities } from './engine/capabilities.ts'
import { createExecutor } from './engine/executor.ts'
import { createNodeRunner } from './engine/node-runner.ts'
import { createNodeTester } from './node-test.ts'
import { createPlanCache } from './engine/plan.ts'
import { createEventRecorder } from './event-recorder.ts'
import type {
  Backlog,
  Engine,
  EngineDispatcher,
  EngineRole,
  EventRecorder,
  Executor,
  NodeRunner,
} from './engine/types.ts'
import { engineLifecycle } from './engine-lifecycle.ts'
import { createWaking } from './engine-waking.ts'
import { type Fairness, fairness } from './dispatch/flow-fairness.ts'
import { createFlowReleases } from './dispatch/flow-releases.ts'
import { createEventRouter } from './integrations/router.ts'
import { createTriggerIndex } from './integrations/trigger-index.ts'
import { runProjection } from './projection.ts'
import { createSandbox, type Sandbox } from './sandbox/index.ts'
import { createReconciler } from './schedules/reconcile.ts'
import { createScheduleTicker } from './schedules/scheduler.ts'
import { createPoller } from './polls/poller.ts'
import { createPollReconciler } from './polls/reconcile.ts'
import { createSubscriptionKeeper } from './subscriptions/keeper.ts'
import { createSubscriptionReconciler } from './subscriptions/reconcile.ts'
import { createDurableTimers } from './timers.ts'
import { createStaleness, createWorkerPresence, type Staleness } from './workers.ts'

import type { SecretMasks } from '../core/security/value-mask.ts'
import type { SecretProps } from '../core/services/secret-props.ts'
import type { Metrics } from '../core/ports/metrics.ts'
import type { Tracing } from '../core/ports/tracing.ts'
import type { CapabilityDeps } from './host-capabilities.ts'

export type { Engine, EngineRole }

export { WAKE_SUBJECT } from './engine-waking.ts'

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
  /** The shortest interval between two polls of one polling trigger (AUTOMATON_POLL_MIN_INTERVAL_MS). */
  pollMinIntervalMs?: number
  /** Seals the key-value stores of trigger subscriptions; without it a store cannot be kept. */
  secretBox?: SecretBox
  /** AUTOMATON_PUBLIC_URL: the base of the webhook URLs trigger subscriptions are given. */
  publicUrl?: string | null
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
  /** Runs per organization (times its fair share) an API process puts in the work queue at once (AUTOMATON_FAIR_SHARE_LINE). */
  fairShareLine?: number
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

export function createEngine(deps: EngineDeps): Engine {
  const recorder = deps.recorder ?? createEventRecorder()
  const plans = createPlanCache()
  const executes = deps.role !== 'api'
  // An API process counts the runs not started in the store: the backlog's bound and fairness read it.
  const inLine =
    deps.backlog && deps.role !== 'embedded' ? storeBacklogSource({ store: deps.store, logger: deps.logger }) : null
  const backlog = createEngineBacklog(deps, () => executor, inLine)
  const fair = fairness(deps, inLine, (runId) => waking.notify(runId))
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
    handOff: executes ? (fresh) => executor.enqueueFresh(fresh) : (fresh) => fair.handOff(fresh),
    onHeld: (workflowId) => flowReleases.note(workflowId),
    wake: (runId) => wake(runId),
    // Every process that admits runs pure runs to their end at admission, an API process too: such
    // a run needs nothing a worker has, and ends without the trip to one. Other runs go to the
    // executor (the workers, when scaled out).
    finishAtAdmission: deps.finishAtAdmission !== false ? (...args) => executor.finishAtAdmission(...args) : undefined,
  })
  const sandbox = createSandbox()
  const staleness = createStaleness({ clock: deps.clock, timeoutMs: deps.workerTimeoutMs ?? 15_000 })
  const { executor, runner } = createEngineExecutor(deps, { recorder, plans, dispatcher, sandbox, staleness, fair })
  const waking = createWaking(deps, executor)
  const { wake } = waking
  const flowReleases = createFlowReleases({ ...deps, wake, fair: fair.releases })
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
    onBeat: async () => {
      await executor.sweep()
      await flowReleases.sweep()
    },
    staleness,
  })
  const triggering = createTriggering(deps, { recorder, dispatcher, backlog, wake })
  const { schedules } = triggering
  return {
    wake,
    recorder,
    checker: createDefinitionChecker(deps.registry),
    dispatcher,
    control,
    executor,
    timers,
    ...triggering,
    projection: runProjection,
    nodeTester: createNodeTester({ runner, clock: deps.clock, ids: deps.ids }),
    role: deps.role,
    backlog: () => backlog?.report() ?? null,
    concurrencyLimit: () => executor.concurrencyLimit,
    ...engineLifecycle(deps, {
      executor,
      presence,
      timers,
      schedules,
      polls: triggering.polls,
      subscriptions: triggering.subscriptions,
      triggerIndex: triggering.triggerIndex,
      backlog,
      sandbox,
      waking,
      flowReleases,
    }),
  }
}

/**
 * The admission backlog, when bounded. An embedded process executes what it admits, so its
 * executor's queue is the backlog; API and worker processes share theirs through the store.
 */
function createEngineBacklog(deps: EngineDeps, executor: () => Executor, inLine: BacklogSource | null): Backlog | null {
  if (!deps.backlog) return null
  return createBacklog({
    limits: deps.backlog,
    clock: deps.clock,
    source: inLine ?? executorBacklogSource(() => executor().backlog()),
  })
}

/** The executor of live runs, with the node runner and the capabilities its nodes use. */
function createEngineExecutor(
  deps: EngineDeps,
  parts: {
    recorder: EventRecorder
    plans: ReturnType<typeof createPlanCache>
    dispatcher: EngineDispatcher
    sandbox: Sandbox
    staleness: Staleness
    fair: Fairness
  },
): { executor: Executor; runner: NodeRunner } {
  const capabilities = createCapabilities({
    http: deps.http,
    sandbox: parts.sandbox,
    logger: deps.logger,
    clock: deps.clock,
    dispatcher: parts.dispatcher,
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
  const executor = createExecutor({
    store: deps.store,
    bus: deps.bus,
    clock: deps.clock,
    ids: deps.ids,
    logger: deps.logger,
    recorder: parts.recorder,
    consecutiveFailuresPause: deps.consecutiveFailuresPause,
    registry: deps.registry,
    runner,
    plans: parts.plans,
    concurrency: deps.concurrency,
    lagTargetMs: deps.role === 'embedded' ? deps.lagTargetMs : 0,
    workerId: deps.workerId,
    workerTimeoutMs: deps.workerTimeoutMs ?? 15_000,
    metrics: deps.metrics,
    tracing: deps.tracing,
    staleBefore: () => parts.staleness.staleBefore(),
    fairShare: parts.fair.shares.of,
  })
  return { executor, runner }
}

/** What starts runs from outside events: schedules, and integration events routed to workflows and waiting runs. */
function createTriggering(
  deps: EngineDeps,
  parts: { recorder: EventRecorder; dispatcher: EngineDispatcher; backlog: Backlog | null; wake(runId: string): void },
) {
  const { recorder, dispatcher } = parts
  const reconciler = createReconciler({
    registry: deps.registry,
    clock: deps.clock,
    ids: deps.ids,
    logger: deps.logger,
    dialect: deps.store.dialect,
  })
  const triggerIndex = createTriggerIndex({ dialect: deps.store.dialect, logger: deps.logger })
  const pollReconciler = createPollReconciler({
    registry: deps.registry,
    clock: deps.clock,
    ids: deps.ids,
    dialect: deps.store.dialect,
  })
  const subscriptionReconciler = createSubscriptionReconciler({
    registry: deps.registry,
    clock: deps.clock,
    ids: deps.ids,
    dialect: deps.store.dialect,
  })
  // Schedule, poll and subscription rows and the live trigger index change in the same transaction as the workflow event that changes them.
  recorder.listen((tx, events) => reconciler.onEvents(tx, events))
  recorder.listen((tx, events) => pollReconciler.onEvents(tx, events))
  recorder.listen((tx, events) => subscriptionReconciler.onEvents(tx, events))
  recorder.listen((tx, events) => triggerIndex.onEvents(tx, events))
  const router = createEventRouter({
    backlog: parts.backlog ?? undefined,
    store: deps.store,
    registry: deps.registry,
    dispatcher,
    clock: deps.clock,
    ids: deps.ids,
    logger: deps.logger,
    wake: parts.wake,
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
  const polls = createPoller({
    store: deps.store,
    bus: deps.bus,
    clock: deps.clock,
    logger: deps.logger,
    registry: deps.registry,
    dispatcher,
    reconciler: pollReconciler,
    owner: deps.workerId,
    minIntervalMs: deps.pollMinIntervalMs ?? 10_000,
    http: deps.http,
    openConnector: deps.connector,
  })
  const subscriptions = createSubscriptionKeeper({
    store: deps.store,
    bus: deps.bus,
    clock: deps.clock,
    ids: deps.ids,
    logger: deps.logger,
    registry: deps.registry,
    reconciler: subscriptionReconciler,
    http: deps.http,
    openConnector: deps.connector,
    secretBox: deps.secretBox ?? noSecretBox,
    publicUrl: deps.publicUrl ?? null,
  })
  return { reconciler, triggerIndex, router, schedules, polls, subscriptions }
}

/** Where no secret box was given: a trigger subscription that keeps anything fails with a message. */
const noSecretBox: SecretBox = {
  seal: () => Promise.reject(new Error('this process has no secret box to keep trigger subscriptions with')),
  open: () => Promise.reject(new Error('this process has no secret box to keep trigger subscriptions with')),
}
