/**
 * The composition root: reads the configuration, picks the adapters (SQLite or Postgres, the
 * in-process bus or NATS, Bun.serve or Deno.serve), builds the services and runs one command:
 * `serve`, `worker`, `migrate`, `orgs …`, `keys …`. Only this file knows every layer.
 *
 * Resource lifetimes are an Effect scope: whatever was opened is closed in reverse order, on
 * a normal exit, on SIGINT/SIGTERM, and when start-up fails half way.
 */
import { createX402Endpoints } from './core/services/x402-endpoints.ts'
import { type AgentService, createAgentService } from './core/services/agents.ts'
import { createCardService } from './core/services/cards.ts'
import { agentStore } from './core/store/agents.ts'
import { createX402Service } from './core/services/x402.ts'
import { createWalletService } from './core/services/wallets.ts'
import { createViemChains } from './adapters/evm/chains.ts'
import { createHttpFacilitator } from './adapters/x402/facilitator.ts'
import process from 'node:process'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { Effect, Exit, Scope } from 'effect'
import pkg from './package.json' with { type: 'json' }
import { type Config, CONFIG_ENTRIES, ConfigError, loadConfig, settingOf } from './core/config.ts'
import { SCOPES, type Scope as KeyScope } from './core/domain/permissions.ts'
import { isAppError } from './core/errors.ts'
import { createApp } from './core/http/app.ts'
import { createIds } from './core/ids.ts'
import { createJsonLogger } from './core/logger.ts'
import type { Bus } from './core/ports/bus.ts'
import { type Clock, systemClock } from './core/ports/clock.ts'
import type { HttpClient } from './core/ports/http-client.ts'
import type { HttpServer, TlsPem } from './core/ports/http-server.ts'
import type { Logger } from './core/ports/logger.ts'
import type { Store } from './core/ports/store.ts'
import type { WorkQueue } from './core/ports/work-queue.ts'
import { createSecretBox, decodeMasterKey, generateMasterKey, type Keyring, MasterKeyError, masterKeyId } from './core/security/secret-box.ts'
import { installationSettings, SEALING_KEY } from './core/store/installation-settings.ts'
import { createApiKeyService } from './core/services/api-keys.ts'
import { createAuthService } from './core/services/auth.ts'
import { BootstrapKeyError, createOrganizationService } from './core/services/organizations.ts'
import { createMemberService } from './core/services/members.ts'
import { createPeopleService } from './core/services/people.ts'
import { createOperatorCheck, createTemplateService } from './core/services/templates.ts'
import { createAppService } from './core/services/apps.ts'
import { createAiService } from './core/services/ai.ts'
import { createBuilderChat } from './core/services/builder-chat.ts'
import { createContractChat } from './core/services/contract-chat.ts'
import { createSolcCompiler } from './adapters/solc/compiler.ts'
import { createOpenAiCompatibleProvider } from './adapters/openai/provider.ts'
import { tags } from './core/store/templates.ts'
import { ROLES, type Role } from './core/domain/permissions.ts'
import { buildCatalog, catalogTags } from './core/plugin/catalog.ts'
import type { PasswordHasher } from './core/ports/passwords.ts'
import { rotateMasterKey } from './core/services/master-key.ts'
import { createOrganizationSettingsService } from './core/services/organization-settings.ts'
import { createRunService } from './core/services/runs.ts'
import { createScheduleService } from './core/services/schedules.ts'
import { createExecutionHookService } from './core/services/execution-hooks.ts'
import { createServiceAccountService } from './core/services/service-accounts.ts'
import { createWorkflowService } from './core/services/workflows.ts'
import { createWebhookEventService } from './core/services/webhook-events.ts'
import { createWebhookIntake } from './core/services/webhook-intake.ts'
import { createOrganizationWebhookSecretService } from './core/services/organization-webhook-secret.ts'
import { createRegistryOf, PluginLoadError } from './core/plugin/load.ts'
import { PluginError } from './core/plugin/registry.ts'
import type { PluginDefinition } from './core/plugin/sdk.ts'
import { createConnectorService } from './core/services/connectors.ts'
import { createSecretMasks } from './core/services/secret-masks.ts'
import { createSecretProps } from './core/services/secret-props.ts'
import { createMetrics } from './core/metrics.ts'
import { noTracing, type Tracing } from './core/ports/tracing.ts'
import { BUILT_IN_PLUGINS } from './plugins/index.ts'
import { createHookDelivery, type HookDelivery } from './runtime/hooks/index.ts'
import { createEngine, type EngineRole } from './runtime/index.ts'
import { createEventRecorder } from './runtime/events.ts'
import { createMinIntervalGuard } from './runtime/schedules/guard.ts'
import { createPruner } from './runtime/retention.ts'
import { createStreamHub } from './runtime/streams.ts'
import { createGuardedHttpClient } from './adapters/http/guarded-client.ts'
import { MIGRATIONS } from './core/store/migrations.ts'
import { aiCredits } from './core/store/ai-credits.ts'
import { ensureDir, loadOrCreateMasterKey, promoteNextMasterKey, readMasterKeys, stageNextMasterKey } from './adapters/files/master-key.ts'
import { loadPluginsDir } from './adapters/files/plugins-dir.ts'
import { BackupError, createBackup, restoreBackup } from './adapters/files/backup.ts'
import { PassphraseError } from './core/security/passphrase.ts'
import { memoryBus } from './adapters/memory/bus.ts'
import { memoryWorkQueue } from './adapters/memory/work-queue.ts'
import { routable } from './core/http/request-state.ts'
import { createUniverseService, situationSymbolsCheck, UniverseFileError } from './core/services/universe.ts'
import { SHIPPED_UNIVERSE_CSV } from './plugins/markets/universe/tickers.csv.ts'

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

export { BUILT_IN_PLUGINS }

/** Acquires a resource and registers its release; releases run in reverse order. */
type Own = <T>(acquire: () => Promise<T> | T, release: (value: T) => Promise<unknown> | unknown) => Promise<T>

/**
 * Opens the store and bus, applies migrations, builds services and the HTTP app.
 *
 * This runs as plain async code, not inside an Effect fiber: a fiber's async context would
 * follow every request and run callback (Bun carries it through each promise), which cost a
 * third of the webhook throughput when measured. Effect owns the lifetimes instead: each
 * release is a finalizer of a Scope that closes them in reverse order.
 */
async function acquireSystem(config: Config, options: SystemOptions, own: Own) {
  const logger = options.logger ?? createJsonLogger(config.logLevel, (line) => process.stderr.write(line))
  const clock = options.clock ?? systemClock
  const ids = createIds(clock)
  // Plugins first: a plugin that cannot load stops the start before anything is opened.
  const external = config.pluginsDir ? await loadPluginsDir(config.pluginsDir) : []
  const registry = createRegistryOf([
    ...BUILT_IN_PLUGINS.map((plugin) => ({ plugin })), ...external, ...(options.plugins ?? []).map((plugin) => ({ plugin })),
  ])
  if (external.length > 0) logger.info('loaded external plugins', { plugins: external.map((p) => `${p.plugin.id} (${p.source})`) })
  const store = await own(() => openStore(config), (s) => s.close())
  await store.migrate(MIGRATIONS)
  const role: EngineRole = options.role ?? (config.natsUrl ? 'api' : 'embedded')
  const { bus, workQueue } = await openMessaging(config, role, logger, own)
  const secretBox = await openKeyring(config, logger, store, clock)
  const auth = await own(() => createAuthService({ store, clock, bus, logger }), (a) => a.stop())
  const apiKeys = createApiKeyService({ store, clock, ids, auth })
  const serviceAccounts = createServiceAccountService({ store, clock, ids, auth })
  const organizations = createOrganizationService({ store, clock, ids, logger, apiKeys, startingCredits: config.aiDefaultCredits })
  // One recorder of journal events for the engine and the services that record workflow events.
  const recorder = createEventRecorder()
  // Agent runs' worker sessions end in the transaction that records their run's end.
  let agents: AgentService | null = null
  recorder.listen(async (tx, events) => {
    if (agents) await agents.onRecorded(tx, events)
  })
  const passwords: PasswordHasher = isBun
    ? (await import('./adapters/bun/passwords.ts')).bunPasswordHasher({ memoryCost: config.passwordHashMemoryKib })
    : (await import('./adapters/deno/passwords.ts')).wasmPasswordHasher({ memoryCost: config.passwordHashMemoryKib })
  const knownTags = catalogTags(buildCatalog(registry))
  const people = createPeopleService({
    store, clock, ids, logger, passwords, knownTags: async () => new Set([...knownTags, ...(await tags.slugs(store))]),
    settings: { idleMs: config.sessionIdleMs, maxAgeMs: config.sessionMaxAgeMs, invitationTtlMs: config.invitationTtlMs },
  })
  const members = createMemberService({ store, bus, clock, ids, auth, recorder, afterRemoval: people.afterRemoval })
  if (config.bootstrapKey) {
    const result = await organizations.bootstrap(config.bootstrapKey)
    if (result.created) logger.info('bootstrap key created', { organizationId: result.organization.id, keyId: result.keyId })
  }
  const metrics = createMetrics()
  const tracing = options.tracing ?? (config.otlpEndpoint
    ? await own(
      async () => (await import('./adapters/otel/tracing.ts')).createOtelTracing({ endpoint: config.otlpEndpoint!, serviceName: 'automaton', serviceVersion: VERSION, role }),
      (t) => t.shutdown(),
    )
    : noTracing)
  const masks = createSecretMasks({ store, secretBox, clock, logger })
  const ai = createAiService({
    store, clock, ids, logger, metrics,
    provider: config.aiBaseUrl ? createOpenAiCompatibleProvider({ baseUrl: config.aiBaseUrl, apiKey: config.aiApiKey ?? undefined, model: config.aiModel! }) : null,
  })
  const connectors = createConnectorService({ store, clock, ids, registry, secretBox, onChange: (organizationId) => masks.forget(organizationId) })
  const http = options.http ?? createGuardedHttpClient({ allow: config.allowPrivateTargets, logger })
  const chains = createViemChains(config.chains)
  const cards = createCardService({
    store, clock, ids, secretBox, disclosureTtlMs: config.disclosureTtlMs,
    agentRunOfKey: agentStore.runOfKey, runOf: agentStore.runInfo,
  })
  const x402Endpoints = createX402Endpoints({ store, clock, ids, http, chains, secretBox, maxImportPrice: BigInt(config.x402MaxImportPrice), ai })
  const engine = createEngine({
    store, bus, workQueue, clock, ids, logger, registry, http, role, workerId: ids.next('wkr'), host: hostname(),
    concurrency: config.workerConcurrency, lagTargetMs: config.executionLagTargetMs, finishAtAdmission: config.finishAtAdmission, consecutiveFailuresPause: config.consecutiveFailuresPause,
    workerTimeoutMs: config.workerTimeoutMs, heartbeatMs: config.heartbeatMs, scheduleGraceMs: config.scheduleGraceMs,
    connector: connectors.resolve,
    backlog: { max: config.maxBacklog, orgSharePercent: config.maxBacklogOrgShare }, recorder, masks,
    secretProps: createSecretProps({ store, secretBox, clock, logger }), ai, x402: x402Endpoints, metrics, tracing,
    agentApi: { call: (runId, organizationId, request) => agents!.call(runId, organizationId, request) },
    cards: { redeem: (organizationId, runId, handle, hosts) => cards.redeem(organizationId, runId, handle, hosts) },
  })
  metrics.sample(metrics.admissionBacklog, () => engine.backlog()?.total)
  metrics.sample(metrics.executorConcurrency, () => engine.concurrencyLimit())
  const hookPolicy = { allowHttp: config.hookAllowHttp, allowList: config.allowPrivateTargets }
  const executionHooks = createExecutionHookService({ store, bus, clock, ids, http, secretBox, policy: hookPolicy })
  let hooks: HookDelivery | null = null
  if (options.engine !== false) {
    // Hooks send many requests to few hosts: their client keeps connections open.
    const hookHttp = options.http ?? createGuardedHttpClient({ allow: config.allowPrivateTargets, logger, keepAlive: true })
    hooks = createHookDelivery({
      store, bus, clock, ids, logger, http: hookHttp, secretBox, policy: hookPolicy, schedule: config.hookRetrySchedule,
      concurrency: config.hookConcurrency, timeoutMs: config.hookTimeoutMs, pollMs: config.hookPollMs, userAgent: `Automaton-Webhooks/${VERSION}`, metrics,
      // Deliveries are sent where runs execute.
      sends: engine.role !== 'api',
    })
    // Every process that records run events writes their deliveries (the API role records run.started);
    // before the engine starts, so the events of recovered runs reach the outbox too. Stops after the engine.
    engine.recorder.listen(hooks.outbox)
    const delivery = hooks
    await own(() => delivery.start(), () => delivery.stop(config.shutdownGraceMs))
    await own(() => engine.start(), () => engine.stop(config.shutdownGraceMs))
  }
  // Processes that execute runs also prune them; an API process leaves it to its workers.
  const pruner = createPruner({ store, clock, logger, defaultRetentionMs: config.runRetentionMs, intervalMs: config.pruneIntervalMs })
  if (options.engine !== false && engine.role !== 'api') await own(() => pruner.start(), () => pruner.stop())
  const universe = createUniverseService({ store, clock, logger, enabled: config.situationUniverse, shipped: () => SHIPPED_UNIVERSE_CSV })
  await universe.ensureLoaded()
  const workflows = createWorkflowService({
    store, bus, clock, ids, checker: engine.checker, recorder: engine.recorder,
    saveChecks: [situationSymbolsCheck(universe)],
    publishGuards: [connectors.publishGuard, createMinIntervalGuard({ registry, clock, minIntervalMs: config.minScheduleIntervalMs })],
  })
  const operator = createOperatorCheck({ store, clock, operatorOrganization: config.operatorOrganization })
  const templates = createTemplateService({
    store, clock, ids, secretBox, workflows, catalog: buildCatalog(registry), paginationBypassKey: config.paginationBypassKey,
    checkDefinition: workflows.definitionProblems, onSealed: (organizationId) => masks.forget(organizationId),
  })
  await templates.ensureSearchIndex(logger)
  const apps = createAppService({ store, clock, ids })

  const schedules = createScheduleService({ store, registry })
  const runs = createRunService({ store, clock, dispatcher: engine.dispatcher, control: engine.control, projection: engine.projection })
  agents = createAgentService({
    store, clock, ids, logger, registry, secretBox, auth, apiKeys, workflows, runs, dispatcher: engine.dispatcher,
    requireModel: () => ai.requireConfigured(), disabled: new Set(config.agentsDisabled),
  })
  const builderChat = createBuilderChat({ store, clock, ids, logger, ai, workflows, runs, catalog: buildCatalog(registry) })
  const compiler = await own(() => createSolcCompiler(), (c) => c.close())
  const contractChat = createContractChat({ store, clock, ids, ai, compiler })
  const wallets = createWalletService({ store, clock, ids, secretBox, chains })
  const x402 = createX402Service({ store, clock, ids, logger, chains, dispatcher: engine.dispatcher, relayerKey: config.x402RelayerKey, settleTimeoutMs: config.x402SettleTimeoutMs,
    facilitator: config.x402FacilitatorUrl ? createHttpFacilitator({ url: config.x402FacilitatorUrl, timeoutMs: config.x402SettleTimeoutMs }) : null,
  })
  // Settlements left unfinished by a timeout or a killed process are finished from the chain's state.
  if (chains.list().length > 0) await own(async () => x402.startReconciler(), (stop) => stop())
  const webhookSecrets = createOrganizationWebhookSecretService({ store, secretBox, clock })
  const webhookEvents = createWebhookEventService({ store, router: engine.router })
  const organizationSettings = createOrganizationSettingsService({ store, defaultRetentionMs: config.runRetentionMs })
  const webhookIntake = createWebhookIntake({
    store, clock, ids, logger, connectors, webhookSecrets, router: engine.router, metrics,
    settings: (name) => settingOf(config, process.env, name),
  })
  const pushBody = isBun ? (await import('./adapters/bun/push-body.ts')).bunPushBody : undefined
  const streams = { hub: createStreamHub({ store, bus, logger }), heartbeatMs: config.sseHeartbeatMs, maxBufferedBytes: config.sseBufferBytes, pushBody,
    runAppearWaitMs: config.sseRunWaitMs, maxStreamsPerCaller: config.sseMaxStreamsPerKey,
  }
  const app = createApp({
    version: VERSION, maxBodyBytes: config.maxBodyBytes, logger, ids, store, bus, auth, apiKeys, serviceAccounts, members, people, templates, apps, wallets, x402, x402Endpoints, agents, cards, builderChat, contractChat, isOperator: operator.isOperator, workflows, runs, schedules, streams,
    registry, connectors, executionHooks, webhookIntake, webhookEvents, webhookSecrets,
    organizationSettings, trustedProxies: config.trustedProxies, backlog: engine.backlog, universe, metrics, metricsToken: config.metricsToken,
  })
  // Worker sessions call the API in process, through the same handler as any client.
  agents.bindApi((request) => app.handle(request))
  return {
    config, logger, clock, ids, store, bus, secretBox, auth, apiKeys, serviceAccounts, organizations, members, people, templates, apps, ai, metrics, wallets, chains, x402Endpoints, compiler, registry, connectors, engine, workflows, runs,
    schedules, executionHooks, hooks, webhookSecrets, webhookEvents, app,
    organizationSettings, pruner, universe, agents,
  }
}

export type System = Awaited<ReturnType<typeof acquireSystem>> & { close(): Promise<void> }

/** The in-process bus and queue, or NATS (core subjects for the bus, JetStream for work). */
async function openMessaging(config: Config, role: EngineRole, logger: Logger, own: Own): Promise<{ bus: Bus; workQueue: WorkQueue }> {
  if (!config.natsUrl) {
    if (role !== 'embedded') throw new ConfigError(`the ${role} role needs NATS: set AUTOMATON_NATS_URL`)
    return { bus: await own(() => memoryBus(logger), (b) => b.close()), workQueue: memoryWorkQueue() }
  }
  if (!config.databaseUrl) throw new ConfigError('scaling out with NATS needs a shared database: set AUTOMATON_DATABASE_URL to Postgres')
  const [{ connectNats }, { natsBus }, { natsWorkQueue }] = await Promise.all([
    import('./adapters/nats/connection.ts'), import('./adapters/nats/bus.ts'), import('./adapters/nats/work-queue.ts'),
  ])
  const nc = await own(() => connectNats(config.natsUrl!, `automaton-${role}`, logger), (c) => c.drain().catch(() => c.close()))
  const bus = await own(() => natsBus(nc, logger), (b) => b.close())
  return { bus, workQueue: await natsWorkQueue(nc, logger, { stream: config.natsStream }) }
}

async function openStore(config: Config): Promise<Store> {
  if (config.databaseUrl) {
    const { postgresStore } = await import('./adapters/postgres/store.ts')
    const store = postgresStore({ url: config.databaseUrl, poolSize: config.pgPoolSize })
    await store.ping()
    return store
  }
  if (!isBun) throw new ConfigError('the embedded SQLite store needs Bun; on Deno set AUTOMATON_DATABASE_URL')
  ensureDir(config.dataDir)
  const { sqliteStore } = await import('./adapters/sqlite/store.ts')
  return sqliteStore({ path: join(config.dataDir, 'automaton.db'), synchronous: config.sqliteSynchronous, backgroundCheckpoint: true, backgroundSync: true })
}

/** The master keys this process holds, first the one it was given, and where they come from. */
function masterKeysOf(config: Config, logger: Logger): { keys: Uint8Array[]; fromDataDir: boolean } {
  if (config.masterKey) {
    const previous = config.masterKeyPrevious ? [decodeMasterKey(config.masterKeyPrevious, 'AUTOMATON_MASTER_KEY_PREVIOUS')] : []
    return { keys: [decodeMasterKey(config.masterKey), ...previous], fromDataDir: false }
  }
  const { created } = loadOrCreateMasterKey(config.dataDir, generateMasterKey)
  if (created) logger.info('generated a master key', { file: join(config.dataDir, 'master.key') })
  if (config.databaseUrl) {
    logger.warn('AUTOMATON_MASTER_KEY is not set: using the data dir key; every process of this deployment must use the same key')
  }
  return { keys: readMasterKeys(config.dataDir).map((k) => decodeMasterKey(k, 'the data dir\'s master key')), fromDataDir: true }
}

/**
 * The secret box with every key this process holds. New secrets are sealed with the key the
 * installation names (stored at the first start, switched by `master-key rotate`); a process
 * that lacks that key stops here with a message instead of sealing with a key others cannot use.
 */
async function openKeyring(config: Config, logger: Logger, store: Store, clock: Clock): Promise<Keyring> {
  const { keys, fromDataDir } = masterKeysOf(config, logger)
  const box = await createSecretBox(keys[0], {
    others: keys.slice(1),
    sealingKeyId: () => installationSettings.get(store, SEALING_KEY),
    reload: fromDataDir ? () => readMasterKeys(config.dataDir).map((k) => decodeMasterKey(k, 'the data dir\'s master key')) : undefined,
  })
  // While a rotation is being prepared (AUTOMATON_MASTER_KEY_PREVIOUS), the previous key goes on sealing.
  const initial = !fromDataDir && keys.length > 1 ? await masterKeyId(keys[1]) : box.keyId
  await store.write((tx) => installationSettings.setIfAbsent(tx, SEALING_KEY, initial, clock.now()))
  const sealing = (await installationSettings.get(store, SEALING_KEY))!
  if (!(await box.has(sealing))) {
    throw new MasterKeyError(
      `this installation seals its secrets with master key ${sealing}, which this process was not given (it holds ${box.keyIds().join(', ')}): `
        + 'set AUTOMATON_MASTER_KEY to that key, or during a rotation AUTOMATON_MASTER_KEY=<new> and AUTOMATON_MASTER_KEY_PREVIOUS=<old>',
    )
  }
  return box
}

/** Opens a system for a test or a command; `close()` releases everything it opened, in reverse order. */
export async function openSystem(config: Config, options: SystemOptions = {}): Promise<System> {
  const scope = Scope.makeUnsafe()
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  const own: Own = async (acquire, release) => {
    const value = await acquire()
    Effect.runSync(Scope.addFinalizer(scope, Effect.promise(async () => release(value))))
    return value
  }
  try {
    return { ...(await acquireSystem(config, options, own)), close }
  } catch (error) {
    await close()
    throw error
  }
}

/** The PEM files of AUTOMATON_TLS_CERT_FILE and AUTOMATON_TLS_KEY_FILE; undefined when HTTPS is off. */
function readTls(config: Config): TlsPem | undefined {
  if (!config.tlsCertFile && !config.tlsKeyFile) return undefined
  if (!config.tlsCertFile || !config.tlsKeyFile) throw new ConfigError('HTTPS needs both AUTOMATON_TLS_CERT_FILE and AUTOMATON_TLS_KEY_FILE')
  try {
    return { cert: readFileSync(config.tlsCertFile, 'utf8'), key: readFileSync(config.tlsKeyFile, 'utf8') }
  } catch (error) {
    throw new ConfigError(`cannot read the TLS certificate or key: ${(error as Error).message}`)
  }
}

/** Serves the app on PORT (or `options.port`), or only the paths in `options.only`. */
async function listen(system: System, options: { port?: number; only?: readonly string[] } = {}): Promise<HttpServer> {
  const { config } = system
  const app = system.app
  const port = options.port ?? config.port
  // A short Host header must not hide the routes (see routable).
  const fetch = options.only
    ? (request: Request) => {
      const path = new URL(request.url).pathname
      if (options.only!.includes(path)) return app.fetch(routable(request))
      return Response.json({ code: 404, message: `a worker answers only ${options.only!.join(', ')}`, details: [], requestId: '' }, { status: 404 })
    }
    : (request: Request) => app.fetch(routable(request))
  const tls = readTls(config)
  if (isBun) {
    const { serveWithBun } = await import('./adapters/bun/serve.ts')
    return serveWithBun(fetch, { port, host: config.host, maxBodyBytes: config.maxBodyBytes, tls })
  }
  const { serveWithDeno } = await import('./adapters/deno/serve.ts')
  return serveWithDeno(fetch, { port, host: config.host, tls })
}

/** SIGHUP reads the certificate files again; a file that cannot be used leaves the served one in place. */
function reloadTlsOnHangup(system: System, server: HttpServer): () => void {
  const onHangup = () => {
    Promise.resolve()
      .then(() => server.reloadTls(readTls(system.config)!))
      .then(
        () => system.logger.info('reloaded the TLS certificate', { certFile: system.config.tlsCertFile }),
        (error) => system.logger.error('could not reload the TLS certificate; still serving the previous one', { error: (error as Error).message }),
      )
  }
  process.on('SIGHUP', onHangup)
  return () => process.off('SIGHUP', onHangup)
}

const untilSignal = () =>
  new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve())
    process.once('SIGTERM', () => resolve())
  })

/** `worker`: executes runs from the work queue and fires timers until SIGINT or SIGTERM. */
async function work(config: Config): Promise<void> {
  const system = await openSystem(config, { role: 'worker' })
  // A worker serves no API; with AUTOMATON_WORKER_PORT it answers its health and metrics there.
  let server: HttpServer | null = null
  if (config.workerPort !== null) {
    try {
      server = await listen(system, { port: config.workerPort, only: ['/healthz', '/readyz', '/metrics'] })
    } catch (error) {
      await system.close()
      throw error
    }
  }
  system.logger.info('automaton worker is running', { version: VERSION, runtime: isBun ? 'bun' : 'deno', store: system.store.dialect, bus: 'nats', port: server?.port ?? null })
  await untilSignal()
  await server?.stop()
  await system.close()
  system.logger.info('automaton worker stopped')
}

/** `serve`: the API until SIGINT or SIGTERM, then a graceful stop: the server first, then the rest in reverse order. */
async function serve(config: Config): Promise<void> {
  const system = await openSystem(config)
  let server: HttpServer
  try {
    server = await listen(system)
  } catch (error) {
    await system.close()
    throw error
  }
  const stopReloading = server.secure ? reloadTlsOnHangup(system, server) : () => {}
  system.logger.info('automaton is serving', {
    port: server.port, version: VERSION, runtime: isBun ? 'bun' : 'deno',
    store: system.store.dialect, bus: config.natsUrl ? 'nats' : 'in-process', role: system.engine.role,
    scheme: server.secure ? 'https' : 'http',
  })
  await untilSignal()
  stopReloading()
  const stopServer = Effect.promise(() => server.stop(true)).pipe(Effect.timeout(config.shutdownGraceMs), Effect.ignore)
  await Effect.runPromise(stopServer)
  await system.close()
  system.logger.info('automaton stopped')
}

// ---------------------------------------------------------------------------------------------
// The command line

const USAGE = `automaton ${VERSION}

Usage: automaton <command> [options]

  serve                                  serve the API (default); without NATS it also executes runs
  worker                                 execute runs, timers and deliveries (with NATS and Postgres)
  migrate                                apply database migrations and exit
  orgs create <name>                     create an organization; prints it as JSON
  orgs list                              list organizations as JSON
  keys create --org <id|name> --name <n> [--scope read|read-write] [--description <d>] [--expires-at <RFC 3339>]
                                         mint an owner key; prints it as JSON, the raw key in "key"
  credits grant --org <id|name> --amount <n> [--note <text>]
                                         add (or, negative, take away) AI credits of an organization
  devnet [--port 8545]                   a local EVM (anvil) with a test USDC (EIP-3009) and funded accounts;
                                         prints { rpcUrl, chainId, token, accounts, chains } and runs until stopped
  users create --email <e> --org <id|name> [--role owner|developer|viewer] [--name <n>] [--password-file <f>]
                                         make a person who signs in with this email and a password
                                         (from stdin or the file; at least 10 characters)
  users reset-password --email <e> [--password-file <f>]
                                         set a new password (no mail server needed); ends their sessions
  backup create <file> [--passphrase-file <f>]
                                         write a consistent backup of the embedded store while it serves,
                                         with the master key sealed by a passphrase (from stdin or the file)
  backup restore <file> --data-dir <dir> [--passphrase-file <f>]
                                         restore a backup into a new or empty data dir
  master-key generate                    print a new random master key
  master-key rotate                      re-seal every stored secret under a new master key; prints it
                                         (see docs/operations.md: with AUTOMATON_MASTER_KEY set, run it
                                         with AUTOMATON_MASTER_KEY=<new> AUTOMATON_MASTER_KEY_PREVIOUS=<old>)
  universe import <file.csv>             replace the situation universe with the file's tickers
                                         (symbol,name,exchange,type,rank); searches answer 503 meanwhile
  version                                print the version

Configuration comes from the environment; see docs/configuration.md.`

class UsageError extends Error {
  override name = 'UsageError'
}

export function parseArgs(argv: readonly string[]): { positional: string[]; flags: Record<string, string> } {
  const positional: string[] = []
  const flags: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--help' || arg === '-h') flags.help = 'true'
    else if (arg.startsWith('--')) {
      const eq = arg.indexOf('=')
      if (eq > 0) flags[arg.slice(2, eq)] = arg.slice(eq + 1)
      else {
        const value = argv[i + 1]
        if (value === undefined || value.startsWith('--')) throw new UsageError(`${arg} needs a value`)
        flags[arg.slice(2)] = value
        i++
      }
    } else positional.push(arg)
  }
  return { positional, flags }
}

async function withSystem<T>(config: Config, fn: (system: System) => Promise<T>): Promise<T> {
  const system = await openSystem(config, { logger: createJsonLogger('warn', (line) => process.stderr.write(line)), engine: false })
  try {
    return await fn(system)
  } finally {
    await system.close()
  }
}

/**
 * `master-key rotate`. A data dir key: a new key is written beside the old one, every secret is
 * re-sealed under it, then it replaces the old file (a running server finds it there). A key
 * from the environment: the processes already hold the new key as AUTOMATON_MASTER_KEY and the
 * old one as AUTOMATON_MASTER_KEY_PREVIOUS; the rotation moves every secret to the new one.
 */
async function rotateKey(config: Config, s: System) {
  const oneTransaction = s.store.dialect === 'sqlite'
  const deps = { store: s.store, clock: s.clock, reader: s.secretBox }
  if (config.masterKey) {
    if (!config.masterKeyPrevious) {
      throw new UsageError('AUTOMATON_MASTER_KEY is set, so the new key must reach every process first: run `automaton master-key generate`, '
        + 'restart every process with AUTOMATON_MASTER_KEY=<new key> and AUTOMATON_MASTER_KEY_PREVIOUS=<current key>, then run `master-key rotate` with the same two')
    }
    const result = await rotateMasterKey(deps, decodeMasterKey(config.masterKey), { oneTransaction })
    return { masterKey: config.masterKey, ...result, then: 'restart every process without AUTOMATON_MASTER_KEY_PREVIOUS' }
  }
  const next = generateMasterKey()
  stageNextMasterKey(config.dataDir, next)
  const result = await rotateMasterKey(deps, decodeMasterKey(next), { oneTransaction })
  promoteNextMasterKey(config.dataDir)
  return { masterKey: next, ...result, file: join(config.dataDir, 'master.key') }
}

/** The passphrase: the first line of --passphrase-file, or of standard input. */
async function readPassphrase(flags: Record<string, string>): Promise<string> {
  const passphrase = await readSecretLine(flags['passphrase-file'], 'passphrase')
  if (passphrase.length < 8) throw new UsageError('the passphrase must be at least 8 characters (from --passphrase-file or standard input)')
  return passphrase
}

/** The first line of a file, or of standard input (prompting on a terminal). */
async function readSecretLine(file: string | undefined, prompt: string): Promise<string> {
  let text: string
  if (file) text = readFileSync(file, 'utf8')
  else {
    if (process.stdin.isTTY) process.stderr.write(`${prompt}: `)
    text = ''
    for await (const chunk of process.stdin) {
      text += String(chunk)
      if (text.includes('\n')) break
    }
  }
  return text.split(/\r?\n/)[0]
}

/** `backup create`: the embedded store only; Postgres has pg_dump (docs/operations.md). */
async function backupCommand(config: Config, file: string, passphrase: string) {
  if (config.databaseUrl) throw new ConfigError('backup create covers the embedded SQLite store; on Postgres use pg_dump and keep the master key (see docs/operations.md)')
  if (!isBun) throw new ConfigError('the embedded SQLite store needs Bun')
  const raw = config.masterKey ? [config.masterKey, ...(config.masterKeyPrevious ? [config.masterKeyPrevious] : [])] : readMasterKeys(config.dataDir)
  if (raw.length === 0) throw new MasterKeyError(`no master key: set AUTOMATON_MASTER_KEY or point AUTOMATON_DATA_DIR at the installation's data dir`)
  const keys = await Promise.all(raw.map(async (key) => ({ key, id: await masterKeyId(decodeMasterKey(key)) })))
  const { snapshotSqlite } = await import('./adapters/sqlite/backup.ts')
  return createBackup(file, { database: join(config.dataDir, 'automaton.db'), snapshot: snapshotSqlite, keys, passphrase, version: VERSION, now: new Date() })
}

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)

export async function runCli(argv: readonly string[], env: Record<string, string | undefined>): Promise<number> {
  const { positional, flags } = parseArgs(argv)
  const [command = 'serve', sub, ...rest] = positional
  if (flags.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  if (command === 'version') {
    print({ version: VERSION })
    return 0
  }
  const config = loadConfig(env)
  switch (command) {
    case 'serve':
      await serve(config)
      return 0
    case 'worker':
      if (!config.natsUrl) throw new ConfigError('automaton worker needs AUTOMATON_NATS_URL and AUTOMATON_DATABASE_URL; without them, serve runs the workers itself')
      await work(config)
      return 0
    case 'migrate':
      await withSystem(config, async (s) => print({ migrated: true, store: s.store.dialect }))
      return 0
    case 'orgs':
      if (sub === 'create') {
        const name = rest.join(' ').trim() || flags.name
        if (!name) throw new UsageError('orgs create needs a name')
        await withSystem(config, async (s) => print(await s.organizations.create(name)))
        return 0
      }
      if (sub === 'list') {
        await withSystem(config, async (s) => print({ items: await s.organizations.list() }))
        return 0
      }
      throw new UsageError(`unknown command "orgs ${sub ?? ''}"`)
    case 'keys':
      if (sub === 'create') {
        if (!flags.org) throw new UsageError('keys create needs --org <id|name>')
        if (!flags.name) throw new UsageError('keys create needs --name <name>')
        const scope = (flags.scope ?? 'read-write') as KeyScope
        if (!SCOPES.includes(scope)) throw new UsageError('--scope must be read or read-write')
        const expiresAt = flags['expires-at'] ? Date.parse(flags['expires-at']) : null
        if (expiresAt !== null && (Number.isNaN(expiresAt) || expiresAt <= Date.now())) throw new UsageError('--expires-at must be a future RFC 3339 time')
        await withSystem(config, async (s) => {
          const org = await s.organizations.resolve(flags.org)
          print(await s.apiKeys.issue({
            organizationId: org.id, name: flags.name, description: flags.description, scope, role: 'owner',
            serviceAccountId: null, userId: null, createdBy: 'cli', expiresAt,
          }))
        })
        return 0
      }
      throw new UsageError(`unknown command "keys ${sub ?? ''}"`)
    case 'credits':
      if (sub === 'grant') {
        if (!flags.org) throw new UsageError('credits grant needs --org <id|name>')
        const amount = Number(flags.amount)
        if (!Number.isSafeInteger(amount) || amount === 0) throw new UsageError('credits grant needs --amount <whole number of credits, not 0; negative takes credits away>')
        await withSystem(config, async (s) => {
          const org = await s.organizations.resolve(flags.org)
          await s.store.write((tx) => aiCredits.grant(tx, { id: `acr_${crypto.randomUUID()}`, organizationId: org.id, amount, note: flags.note ?? 'cli', at: Date.now() }))
          print({ organizationId: org.id, granted: amount, balance: await aiCredits.balance(s.store, org.id) })
        })
        return 0
      }
      throw new UsageError(`unknown command "credits ${sub ?? ''}"`)
    case 'devnet': {
      const port = flags.port ? Number(flags.port) : 8545
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError('--port must be a port number')
      const { startDevnet } = await import('./adapters/evm/devnet.ts')
      const compiler = createSolcCompiler()
      const devnet = await startDevnet({ compiler, port, host: flags.host ?? '127.0.0.1' }).finally(() => compiler.close())
      const { stop, ...described } = devnet
      print({ ...described, chains: JSON.stringify([{ chainId: devnet.chainId, name: 'devnet', rpcUrl: devnet.rpcUrl, network: devnet.network }]) })
      await untilSignal()
      await stop()
      return 0
    }
    case 'users':
      if (sub === 'create') {
        if (!flags.email) throw new UsageError('users create needs --email <address>')
        if (!flags.org) throw new UsageError('users create needs --org <id|name>')
        const role = (flags.role ?? 'owner') as Role
        if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`)
        const password = await readSecretLine(flags['password-file'], 'password')
        await withSystem(config, async (s) => {
          const org = await s.organizations.resolve(flags.org)
          print(await s.people.createUser({ email: flags.email, name: flags.name ?? '', password, organizationId: org.id, role }))
        })
        return 0
      }
      if (sub === 'reset-password') {
        if (!flags.email) throw new UsageError('users reset-password needs --email <address>')
        const password = await readSecretLine(flags['password-file'], 'new password')
        await withSystem(config, async (s) => print(await s.people.resetPassword(flags.email, password)))
        return 0
      }
      throw new UsageError(`unknown command "users ${sub ?? ''}"`)
    case 'backup':
      if (sub === 'create') {
        if (!rest[0]) throw new UsageError('backup create needs the file to write')
        print(await backupCommand(config, rest[0], await readPassphrase(flags)))
        return 0
      }
      if (sub === 'restore') {
        if (!rest[0]) throw new UsageError('backup restore needs the backup file')
        if (!flags['data-dir']) throw new UsageError('backup restore needs --data-dir <dir>, a new or empty directory')
        print(await restoreBackup(rest[0], flags['data-dir'], await readPassphrase(flags)))
        return 0
      }
      throw new UsageError(`unknown command "backup ${sub ?? ''}"`)
    case 'universe':
      if (sub === 'import') {
        if (!rest[0]) throw new UsageError('universe import needs the CSV file')
        const csv = readFileSync(rest[0], 'utf8')
        await withSystem(config, async (s) => print(await s.universe.import(csv, rest[0])))
        return 0
      }
      throw new UsageError(`unknown command "universe ${sub ?? ''}"`)
    case 'master-key':
      if (sub === 'generate') {
        print({ masterKey: generateMasterKey() })
        return 0
      }
      if (sub === 'rotate') {
        await withSystem(config, async (s) => print(await rotateKey(config, s)))
        return 0
      }
      throw new UsageError(`unknown command "master-key ${sub ?? ''}"`)
    default:
      throw new UsageError(`unknown command "${command}"`)
  }
}

/**
 * The JavaScript engine (JSC) sizes its garbage collection by the machine's memory: on a machine
 * with gigabytes it lets garbage pile up to hundreds of megabytes under load before collecting
 * (the overload soak peaked near 400 MB with 40 MB live). A serving process asks it to size for
 * AUTOMATON_GC_MEMORY_MB instead. JSC reads that (BUN_JSC_forceRAMSize) once, as it starts, so
 * the process executes itself again with it set before doing anything: the same process (its
 * id, its open files) with a new image. Elsewhere, or when the variable is set already, nothing.
 */
function withMemoryHint(args: readonly string[], env: NodeJS.ProcessEnv): void {
  const execve = (process as { execve?: (file: string, args: string[], env: Record<string, string | undefined>) => never }).execve
  if (!isBun || typeof execve !== 'function' || (args[0] !== 'serve' && args[0] !== 'worker') || env.BUN_JSC_forceRAMSize !== undefined) return
  const mb = Number(env.AUTOMATON_GC_MEMORY_MB?.trim() || CONFIG_ENTRIES.find((e) => e.key === 'gcMemoryMb')!.default)
  // 0 leaves the engine alone; a malformed value is refused by the configuration, with its reason.
  if (!Number.isInteger(mb) || mb <= 0) return
  // A compiled binary's argv[1] is its bundled entry, not a file to run.
  const compiled = /^(\/\$bunfs\/|[A-Z]:[\\/]~BUN[\\/])/.test(process.argv[1] ?? '')
  const argv = compiled ? [process.execPath, ...process.argv.slice(2)] : [process.execPath, ...process.execArgv, ...process.argv.slice(1)]
  execve(process.execPath, argv, { ...env, BUN_JSC_forceRAMSize: String(mb * 2 ** 20) })
}

if (import.meta.main) {
  withMemoryHint(process.argv.slice(2), process.env)
  runCli(process.argv.slice(2), process.env).then(
    (code) => process.exit(code),
    (error) => {
      if (error instanceof UsageError) {
        process.stderr.write(`automaton: ${error.message}\n\n${USAGE}\n`)
        process.exit(2)
      }
      const known = error instanceof ConfigError || error instanceof MasterKeyError || error instanceof BootstrapKeyError || isAppError(error)
        || error instanceof BackupError || error instanceof PassphraseError
        || error instanceof PluginLoadError || error instanceof PluginError || error instanceof UniverseFileError
      process.stderr.write(`automaton: ${known ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
      process.exit(1)
    },
  )
}
