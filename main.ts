/**
 * The composition root: reads the configuration, picks the adapters (SQLite or Postgres, the
 * in-process bus or NATS, Bun.serve or Deno.serve, Prometheus, OpenTelemetry, viem), loads the
 * plugins, builds the services and the HTTP app, and hands the process to the command line
 * (adapters/cli/), which runs one command: `serve`, `worker`, `migrate`, `orgs …`, `keys …`.
 * Only this file knows every layer.
 *
 * The system is built first and started after: adapters and plugins, access, what nodes call, the
 * engine, the services, the app; then hook delivery, the engine, the pruner and the x402
 * reconciler start, once everything they may call exists. Resource lifetimes are an Effect scope:
 * whatever was opened is closed in reverse order, on a normal exit, on SIGINT/SIGTERM, and when
 * start-up fails half way.
 */
import process from 'node:process'
import { join } from 'node:path'
import { hostname } from 'node:os'
import { Effect, Exit, Scope } from 'effect'
import pkg from './package.json' with { type: 'json' }
import { withMemoryHint } from './adapters/bun/memory-hint.ts'
import { type CliHost, parseArgs, runAndExit, runCli as runCommandLine } from './adapters/cli/index.ts'
import { createViemChains } from './adapters/evm/chains.ts'
import { evmPaymentScheme } from './adapters/evm/payment-scheme.ts'
import { openKeyring } from './adapters/files/keyring.ts'
import { ensureDir } from './adapters/files/master-key.ts'
import { loadPluginsDir } from './adapters/files/plugins-dir.ts'
import { createGuardedHttpClient } from './adapters/http/guarded-client.ts'
import { memoryBus } from './adapters/memory/bus.ts'
import { memoryWorkQueue } from './adapters/memory/work-queue.ts'
import { createOpenAiCompatibleProvider } from './adapters/openai/provider.ts'
import { prometheusMetrics } from './adapters/prometheus/metrics.ts'
import { createSolcCompiler } from './adapters/solc/compiler.ts'
import { createHttpFacilitator } from './adapters/x402/facilitator.ts'
import { type Config, ConfigError, settingOf } from './core/config.ts'
import { type App, createApp } from './core/http/app.ts'
import { createIds } from './core/ids.ts'
import { createJsonLogger } from './core/logger.ts'
import { buildCatalog, catalogTags } from './core/plugin/catalog.ts'
import { createRegistryOf } from './core/plugin/load.ts'
import type { Registry } from './core/plugin/registry.ts'
import type { PluginDefinition } from './core/plugin/sdk.ts'
import type { Bus } from './core/ports/bus.ts'
import type { Chains } from './core/ports/chain.ts'
import { type Clock, systemClock } from './core/ports/clock.ts'
import type { SolidityCompiler } from './core/ports/compiler.ts'
import type { HttpClient } from './core/ports/http-client.ts'
import type { Ids } from './core/ports/ids.ts'
import type { Logger } from './core/ports/logger.ts'
import type { Metrics } from './core/ports/metrics.ts'
import type { PasswordHasher } from './core/ports/passwords.ts'
import type { PaymentScheme } from './core/ports/payment-scheme.ts'
import type { Store } from './core/ports/store.ts'
import { noTracing, type Tracing } from './core/ports/tracing.ts'
import type { WorkQueue } from './core/ports/work-queue.ts'
import type { Keyring } from './core/security/secret-box.ts'
import { type AgentService, createAgentService } from './core/services/agents.ts'
import { type AiService, createAiService } from './core/services/ai.ts'
import { type ApiKeyService, createApiKeyService } from './core/services/api-keys.ts'
import { type AppService, createAppService } from './core/services/apps.ts'
import { type AuthService, createAuthService } from './core/services/auth.ts'
import { type BuilderChat, createBuilderChat } from './core/services/builder-chat.ts'
import { type CardService, createCardService } from './core/services/cards.ts'
import { type ConnectorService, createConnectorService } from './core/services/connectors.ts'
import { type ContractChat, createContractChat } from './core/services/contract-chat.ts'
import { createExecutionHookService, type ExecutionHookService } from './core/services/execution-hooks.ts'
import { createMemberService, type MemberService } from './core/services/members.ts'
import {
  createOrganizationSettingsService,
  type OrganizationSettingsService,
} from './core/services/organization-settings.ts'
import {
  createOrganizationWebhookSecretService,
  type OrganizationWebhookSecretService,
} from './core/services/organization-webhook-secret.ts'
import { createOrganizationService, type OrganizationService } from './core/services/organizations.ts'
import { createPeopleService, type PeopleService } from './core/services/people.ts'
import { createRunService, type RunService } from './core/services/runs.ts'
import { createScheduleService, type ScheduleService } from './core/services/schedules.ts'
import { createSecretMasks, type SecretMaskService } from './core/services/secret-masks.ts'
import { createSecretProps } from './core/services/secret-props.ts'
import { createServiceAccountService, type ServiceAccountService } from './core/services/service-accounts.ts'
import { createOperatorCheck, createTemplateService, type TemplateService } from './core/services/templates.ts'
import { createUniverseService, situationSymbolsCheck, type UniverseService } from './core/services/universe.ts'
import { createWalletService, type WalletService } from './core/services/wallets.ts'
import { createWebhookEventService, type WebhookEventService } from './core/services/webhook-events.ts'
import { createWebhookIntake, type WebhookIntake } from './core/services/webhook-intake.ts'
import { createWorkflowService, type WorkflowService } from './core/services/workflows.ts'
import { createX402Endpoints, type X402Endpoints } from './core/services/x402-endpoints.ts'
import { createX402Service, type X402Service } from './core/services/x402.ts'
import { agentStore } from './core/store/agents.ts'
import { MIGRATIONS } from './core/store/migrations.ts'
import { tags } from './core/store/templates.ts'
import { BUILT_IN_PLUGINS } from './plugins/index.ts'
import { SHIPPED_UNIVERSE_CSV } from './plugins/markets/universe/tickers.csv.ts'
import { createEventRecorder, type EventRecorder } from './runtime/events.ts'
import { createHookDelivery, type HookDelivery } from './runtime/hooks/index.ts'
import { createEngine, type Engine, type EngineDeps, type EngineRole } from './runtime/index.ts'
import { createPruner, type Pruner } from './runtime/retention.ts'
import { createMinIntervalGuard } from './runtime/schedules/guard.ts'
import { createStreamHub } from './runtime/streams.ts'

export const VERSION: string = pkg.version
const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined'

export interface SystemOptions {
  readonly logger?: Logger
  readonly clock?: Clock
  /** Plugins beside the built-in ones (tests). */
  readonly plugins?: readonly PluginDefinition[]
  /** Whether to recover runs, fire timers and deliver execution hooks; commands that only read or mint keys do not. */
  readonly engine?: boolean
  /** `embedded` (default without NATS), `api` (default with NATS) or `worker`. */
  readonly role?: EngineRole
  /** The outbound HTTP client (tests inject one with their own name resolution); the SSRF-guarded client by default. */
  readonly http?: HttpClient
  /** Where spans go (tests capture them); by default OTLP/HTTP to AUTOMATON_OTLP_ENDPOINT, or nowhere. */
  readonly tracing?: Tracing
}

/** An open system: what tests, benchmarks and the commands reach, in the order it is built. */
export interface System {
  readonly config: Config
  readonly logger: Logger
  readonly clock: Clock
  readonly ids: Ids
  readonly registry: Registry
  readonly store: Store
  readonly role: EngineRole
  readonly bus: Bus
  readonly workQueue: WorkQueue
  readonly secretBox: Keyring
  readonly metrics: Metrics
  readonly tracing: Tracing
  readonly http: HttpClient
  readonly chains: Chains
  readonly scheme: PaymentScheme
  readonly compiler: SolidityCompiler
  readonly auth: AuthService
  readonly apiKeys: ApiKeyService
  readonly serviceAccounts: ServiceAccountService
  readonly organizations: OrganizationService
  readonly people: PeopleService
  readonly members: MemberService
  readonly masks: SecretMaskService
  readonly ai: AiService
  readonly connectors: ConnectorService
  readonly cards: CardService
  readonly x402Endpoints: X402Endpoints
  readonly engine: Engine
  readonly hooks: HookDelivery | null
  readonly pruner: Pruner
  readonly executionHooks: ExecutionHookService
  readonly universe: UniverseService
  readonly workflows: WorkflowService
  readonly runs: RunService
  readonly templates: TemplateService
  readonly apps: AppService
  readonly schedules: ScheduleService
  readonly builderChat: BuilderChat
  readonly contractChat: ContractChat
  readonly wallets: WalletService
  readonly x402: X402Service
  readonly webhookSecrets: OrganizationWebhookSecretService
  readonly webhookEvents: WebhookEventService
  readonly organizationSettings: OrganizationSettingsService
  readonly webhookIntake: WebhookIntake
  readonly agents: AgentService
  readonly app: App
  /** Releases everything the system opened, in reverse order. */
  close(): Promise<void>
}

/** The adapters and plugins every service is built on. */
type Adapters = Pick<
  System,
  | 'config'
  | 'logger'
  | 'clock'
  | 'ids'
  | 'registry'
  | 'store'
  | 'role'
  | 'bus'
  | 'workQueue'
  | 'secretBox'
  | 'metrics'
  | 'tracing'
  | 'http'
  | 'chains'
  | 'scheme'
  | 'compiler'
>
/** Who calls: keys, service accounts, people and their sessions. */
type Access = Pick<System, 'auth' | 'apiKeys' | 'serviceAccounts' | 'organizations' | 'people' | 'members'>
/** What the engine's nodes call besides the plugins' own code. */
type NodeServices = Pick<System, 'masks' | 'ai' | 'connectors' | 'cards' | 'x402Endpoints'>
/** The services of the API's resources. */
type Services = Pick<
  System,
  | 'executionHooks'
  | 'universe'
  | 'workflows'
  | 'runs'
  | 'templates'
  | 'apps'
  | 'schedules'
  | 'agents'
  | 'builderChat'
  | 'contractChat'
  | 'wallets'
  | 'x402'
  | 'webhookSecrets'
  | 'webhookEvents'
  | 'organizationSettings'
  | 'webhookIntake'
>

export { BUILT_IN_PLUGINS, parseArgs }

/** Acquires a resource and registers its release; releases run in reverse order. */
type Own = <T>(acquire: () => Promise<T> | T, release: (value: T) => Promise<unknown> | unknown) => Promise<T>

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
  const background = await startLifecycles(base, options, engine, services, own)
  return { ...base, ...access, ...nodes, ...services, engine, app, ...background }
}

/** The adapters this configuration picks, the plugins, and the store's schema brought up to date. */
async function openAdapters(config: Config, options: SystemOptions, own: Own): Promise<Adapters> {
  const logger = options.logger ?? createJsonLogger(config.logLevel, (line) => process.stderr.write(line))
  const clock = options.clock ?? systemClock
  // Plugins first: a plugin that cannot load stops the start before anything is opened.
  const external = config.pluginsDir ? await loadPluginsDir(config.pluginsDir) : []
  const registry = createRegistryOf([
    ...BUILT_IN_PLUGINS.map((plugin) => ({ plugin })),
    ...external,
    ...(options.plugins ?? []).map((plugin) => ({ plugin })),
  ])
  if (external.length > 0)
    logger.info('loaded external plugins', { plugins: external.map((p) => `${p.plugin.id} (${p.source})`) })
  const store = await own(
    () => openStore(config, logger),
    (s) => s.close(),
  )
  await store.migrate(MIGRATIONS)
  const role: EngineRole = options.role ?? (config.natsUrl ? 'api' : 'embedded')
  const { bus, workQueue } = await openMessaging(config, role, logger, own)
  const secretBox = await openKeyring(config, logger, store, clock)
  const tracing =
    options.tracing ??
    (config.otlpEndpoint
      ? await own(
          async () =>
            (await import('./adapters/otel/tracing.ts')).createOtelTracing({
              endpoint: config.otlpEndpoint!,
              serviceName: 'automaton',
              serviceVersion: VERSION,
              role,
            }),
          (t) => t.shutdown(),
        )
      : noTracing)
  const http = options.http ?? createGuardedHttpClient({ allow: config.allowPrivateTargets, logger })
  const chains = createViemChains(config.chains)
  const compiler = await own(
    () => createSolcCompiler(),
    (c) => c.close(),
  )
  return {
    config,
    logger,
    clock,
    ids: createIds(clock),
    registry,
    store,
    role,
    bus,
    workQueue,
    secretBox,
    metrics: prometheusMetrics(),
    tracing,
    http,
    chains,
    scheme: evmPaymentScheme(chains),
    compiler,
  }
}

/** Authentication, keys, organizations and people; the bootstrap key, when the operator set one. */
async function openAccess(
  { config, logger, clock, ids, store, bus, registry }: Adapters,
  recorder: EventRecorder,
  own: Own,
): Promise<Access> {
  const auth = await own(
    () => createAuthService({ store, clock, bus, logger }),
    (a) => a.stop(),
  )
  const apiKeys = createApiKeyService({ store, clock, ids, auth })
  const serviceAccounts = createServiceAccountService({ store, clock, ids, auth })
  const organizations = createOrganizationService({
    store,
    clock,
    ids,
    logger,
    apiKeys,
    startingCredits: config.aiDefaultCredits,
  })
  const passwords: PasswordHasher = isBun
    ? (await import('./adapters/bun/passwords.ts')).bunPasswordHasher({ memoryCost: config.passwordHashMemoryKib })
    : (await import('./adapters/deno/passwords.ts')).wasmPasswordHasher({ memoryCost: config.passwordHashMemoryKib })
  const knownTags = catalogTags(buildCatalog(registry))
  const people = createPeopleService({
    store,
    clock,
    ids,
    logger,
    passwords,
    knownTags: async () => new Set([...knownTags, ...(await tags.slugs(store))]),
    settings: {
      idleMs: config.sessionIdleMs,
      maxAgeMs: config.sessionMaxAgeMs,
      invitationTtlMs: config.invitationTtlMs,
    },
  })
  const members = createMemberService({ store, bus, clock, ids, auth, recorder, afterRemoval: people.afterRemoval })
  if (config.bootstrapKey) {
    const result = await organizations.bootstrap(config.bootstrapKey)
    if (result.created)
      logger.info('bootstrap key created', { organizationId: result.organization.id, keyId: result.keyId })
  }
  return { auth, apiKeys, serviceAccounts, organizations, people, members }
}

function createNodeServices({
  config,
  logger,
  clock,
  ids,
  store,
  registry,
  secretBox,
  metrics,
  http,
  scheme,
}: Adapters): NodeServices {
  const masks = createSecretMasks({ store, secretBox, clock, logger })
  const forget = (organizationId: string) => masks.forget(organizationId)
  const ai = createAiService({
    store,
    clock,
    ids,
    logger,
    metrics,
    provider: config.aiBaseUrl
      ? createOpenAiCompatibleProvider({
          baseUrl: config.aiBaseUrl,
          apiKey: config.aiApiKey ?? undefined,
          model: config.aiModel!,
        })
      : null,
  })
  return {
    masks,
    ai,
    connectors: createConnectorService({ store, clock, ids, registry, secretBox, onChange: forget }),
    cards: createCardService({
      store,
      clock,
      ids,
      secretBox,
      disclosureTtlMs: config.disclosureTtlMs,
      agentRunOfKey: agentStore.runOfKey,
      runOf: agentStore.runInfo,
      onChange: forget,
    }),
    x402Endpoints: createX402Endpoints({
      store,
      clock,
      ids,
      http,
      scheme,
      secretBox,
      maxImportPrice: BigInt(config.x402MaxImportPrice),
      ai,
    }),
  }
}

function createEngineOf(
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
    connector: nodes.connectors.resolve,
    backlog: { max: config.maxBacklog, orgSharePercent: config.maxBacklogOrgShare },
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

/** The services of the API's resources, the agents' among them. */
function createServices(
  base: Adapters,
  engine: Engine,
  access: Access,
  { masks, ai, connectors }: NodeServices,
  api: (request: Request) => Promise<Response>,
): Services {
  const { config, logger, clock, ids, store, bus, registry, secretBox } = base
  const universe = createUniverseService({
    store,
    clock,
    logger,
    enabled: config.situationUniverse,
    shipped: () => SHIPPED_UNIVERSE_CSV,
  })
  const workflows = createWorkflowService({
    store,
    bus,
    clock,
    ids,
    checker: engine.checker,
    recorder: engine.recorder,
    saveChecks: [situationSymbolsCheck(universe)],
    publishGuards: [
      connectors.publishGuard,
      createMinIntervalGuard({ registry, clock, minIntervalMs: config.minScheduleIntervalMs }),
    ],
  })
  const runs = createRunService({
    store,
    clock,
    dispatcher: engine.dispatcher,
    control: engine.control,
    projection: engine.projection,
  })
  const webhookSecrets = createOrganizationWebhookSecretService({ store, secretBox, clock })
  return {
    universe,
    workflows,
    runs,
    webhookSecrets,
    executionHooks: createExecutionHookService({
      store,
      bus,
      clock,
      ids,
      http: base.http,
      secretBox,
      policy: hookPolicyOf(config),
    }),
    templates: createTemplateService({
      store,
      clock,
      ids,
      secretBox,
      workflows,
      catalog: buildCatalog(registry),
      paginationBypassKey: config.paginationBypassKey,
      checkDefinition: workflows.definitionProblems,
      onSealed: (organizationId) => masks.forget(organizationId),
    }),
    apps: createAppService({ store, clock, ids }),
    schedules: createScheduleService({ store, registry }),
    agents: createAgentService({
      store,
      clock,
      ids,
      logger,
      registry,
      secretBox,
      auth: access.auth,
      apiKeys: access.apiKeys,
      workflows,
      runs,
      dispatcher: engine.dispatcher,
      requireModel: () => ai.requireConfigured(),
      disabled: new Set(config.agentsDisabled),
      api,
    }),
    builderChat: createBuilderChat({ store, clock, ids, logger, ai, workflows, runs, catalog: buildCatalog(registry) }),
    contractChat: createContractChat({ store, clock, ids, ai, compiler: base.compiler }),
    wallets: createWalletService({ store, clock, ids, secretBox, chains: base.chains }),
    x402: createX402Service({
      store,
      clock,
      ids,
      logger,
      scheme: base.scheme,
      dispatcher: engine.dispatcher,
      relayerKey: config.x402RelayerKey,
      settleTimeoutMs: config.x402SettleTimeoutMs,
      facilitator: config.x402FacilitatorUrl
        ? createHttpFacilitator({ url: config.x402FacilitatorUrl, timeoutMs: config.x402SettleTimeoutMs })
        : null,
    }),
    webhookEvents: createWebhookEventService({ store, router: engine.router }),
    organizationSettings: createOrganizationSettingsService({ store, defaultRetentionMs: config.runRetentionMs }),
    webhookIntake: createWebhookIntake({
      store,
      clock,
      ids,
      logger,
      connectors,
      webhookSecrets,
      router: engine.router,
      metrics: base.metrics,
      settings: (name) => settingOf(config, process.env, name),
    }),
  }
}

/** Where execution hooks may be sent: one policy for the API that registers them and for their delivery. */
const hookPolicyOf = (config: Config) => ({ allowHttp: config.hookAllowHttp, allowList: config.allowPrivateTargets })

/** The HTTP app over every service; streams of runs and feeds fan out from the bus. */
async function createHttpApp(base: Adapters, engine: Engine, services: Access & NodeServices & Services): Promise<App> {
  const { config, logger, clock, store, bus } = base
  const pushBody = isBun ? (await import('./adapters/bun/push-body.ts')).bunPushBody : undefined
  const streams = {
    hub: createStreamHub({ store, bus, logger }),
    heartbeatMs: config.sseHeartbeatMs,
    maxBufferedBytes: config.sseBufferBytes,
    pushBody,
    runAppearWaitMs: config.sseRunWaitMs,
    maxStreamsPerCaller: config.sseMaxStreamsPerKey,
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
    registry: base.registry,
    trustedProxies: config.trustedProxies,
    backlog: engine.backlog,
    metrics: base.metrics,
    metricsToken: config.metricsToken,
  })
}

/**
 * Starts what runs on its own, in this order: hook delivery before the engine (so the events of
 * recovered runs reach the outbox too; it stops after the engine), the pruner where runs execute
 * (an API process leaves it to its workers), the search indexes, and the x402 reconciler.
 */
async function startLifecycles(
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

/** The in-process bus and queue, or NATS (core subjects for the bus, JetStream for work). */
async function openMessaging(
  config: Config,
  role: EngineRole,
  logger: Logger,
  own: Own,
): Promise<{ bus: Bus; workQueue: WorkQueue }> {
  if (!config.natsUrl) {
    if (role !== 'embedded') throw new ConfigError(`the ${role} role needs NATS: set AUTOMATON_NATS_URL`)
    return {
      bus: await own(
        () => memoryBus(logger),
        (b) => b.close(),
      ),
      workQueue: memoryWorkQueue(),
    }
  }
  if (!config.databaseUrl)
    throw new ConfigError('scaling out with NATS needs a shared database: set AUTOMATON_DATABASE_URL to Postgres')
  const [{ connectNats }, { natsBus }, { natsWorkQueue }] = await Promise.all([
    import('./adapters/nats/connection.ts'),
    import('./adapters/nats/bus.ts'),
    import('./adapters/nats/work-queue.ts'),
  ])
  const nc = await own(
    () => connectNats(config.natsUrl!, `automaton-${role}`, logger),
    (c) => c.drain().catch(() => c.close()),
  )
  const bus = await own(
    () => natsBus(nc, logger),
    (b) => b.close(),
  )
  return { bus, workQueue: await natsWorkQueue(nc, logger, { stream: config.natsStream }) }
}

async function openStore(config: Config, logger: Logger): Promise<Store> {
  if (config.databaseUrl) {
    const { postgresStore } = await import('./adapters/postgres/store.ts')
    const store = postgresStore({ url: config.databaseUrl, poolSize: config.pgPoolSize, logger })
    await store.ping()
    return store
  }
  if (!isBun) throw new ConfigError('the embedded SQLite store needs Bun; on Deno set AUTOMATON_DATABASE_URL')
  ensureDir(config.dataDir)
  const { sqliteStore } = await import('./adapters/sqlite/store.ts')
  return sqliteStore({
    path: join(config.dataDir, 'automaton.db'),
    synchronous: config.sqliteSynchronous,
    backgroundCheckpoint: true,
    backgroundSync: true,
    logger,
  })
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

/** What the command line gets from this root: the version, the runtime, the system and an HTTP server. */
const host: CliHost = {
  version: VERSION,
  runtime: isBun ? 'bun' : 'deno',
  openSystem,
  async listen(fetch, options) {
    if (isBun) return (await import('./adapters/bun/serve.ts')).serveWithBun(fetch, options)
    return (await import('./adapters/deno/serve.ts')).serveWithDeno(fetch, options)
  },
}

/** Runs one command line (`automaton <command> [options]`): its exit code. */
export const runCli = (argv: readonly string[], env: Record<string, string | undefined>): Promise<number> =>
  runCommandLine(argv, env, host)

if (import.meta.main) {
  withMemoryHint(process.argv.slice(2), process.env)
  runAndExit(process.argv.slice(2), process.env, host)
}
