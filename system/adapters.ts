import process from 'node:process'
import { join } from 'node:path'
import { createViemChains } from '../adapters/evm/chains.ts'
import { evmPaymentScheme } from '../adapters/evm/payment-scheme.ts'
import { openKeyring } from '../adapters/files/keyring.ts'
import { ensureDir } from '../adapters/files/master-key.ts'
import { loadPluginsDir } from '../adapters/files/plugins-dir.ts'
import { createGuardedHttpClient } from '../adapters/http/guarded-client.ts'
import { memoryBus } from '../adapters/memory/bus.ts'
import { memoryWorkQueue } from '../adapters/memory/work-queue.ts'
import { prometheusMetrics } from '../adapters/prometheus/metrics.ts'
import { createSolcCompiler } from '../adapters/solc/compiler.ts'
import { type Config, ConfigError } from '../core/config.ts'
import { createIds } from '../core/ids.ts'
import { createJsonLogger } from '../core/logger.ts'
import { createRegistryOf } from '../core/plugin/load.ts'
import type { Bus } from '../core/ports/bus.ts'
import { systemClock } from '../core/ports/clock.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'
import { noTracing } from '../core/ports/tracing.ts'
import type { WorkQueue } from '../core/ports/work-queue.ts'
import { MIGRATIONS } from '../core/store/migrations.ts'
import { openAuditKey } from '../core/services/audit-key.ts'
import { createAuditLog } from '../core/services/audit-log.ts'
import { auditedStore } from '../core/services/audit-store.ts'
import { auditedIds } from '../core/services/audit-context.ts'
import { BUILT_IN_PLUGINS } from '../plugins/index.ts'
import type { EngineRole } from '../runtime/index.ts'
import { isBun, VERSION } from './platform.ts'
import type { Adapters, Own, SystemOptions } from './types.ts'

/** The adapters this configuration picks, the plugins, and the store's schema brought up to date. */
export async function openAdapters(config: Config, options: SystemOptions, own: Own): Promise<Adapters> {
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
  // A creation's audit record names what it made: the first id it makes (audit-context.ts).
  const ids = auditedIds(createIds(clock))
  const audit = createAuditLog({ store, clock, ids, key: await openAuditKey(store, secretBox, clock) })
  const tracing =
    options.tracing ??
    (config.otlpEndpoint
      ? await own(
          async () =>
            (await import('../adapters/otel/tracing.ts')).createOtelTracing({
              endpoint: config.otlpEndpoint!,
              serviceName: 'automaton',
              serviceVersion: VERSION,
              role,
            }),
          (t) => t.shutdown(),
        )
      : noTracing)
  // Nodes' calls keep connections open: opening one costs more CPU than the request it carries.
  const http = options.http ?? createGuardedHttpClient({ allow: config.allowPrivateTargets, logger, keepAlive: true })
  const chains = createViemChains(config.chains)
  const compiler = await own(
    () => createSolcCompiler(),
    (c) => c.close(),
  )
  return {
    config,
    logger,
    clock,
    ids,
    registry,
    // Every service writes through it: an audited act's record goes in the transaction of its change.
    store: auditedStore(store, () => audit),
    audit,
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

/** The in-process bus and queue, or NATS (core subjects for the bus, JetStream for work). */
export async function openMessaging(
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
    import('../adapters/nats/connection.ts'),
    import('../adapters/nats/bus.ts'),
    import('../adapters/nats/work-queue.ts'),
  ])
  const nc = await own(
    () => connectNats(config.natsUrl!, `automaton-${role}`, logger),
    (c) => c.drain().catch(() => c.close()),
  )
  const prefix = config.natsPrefix
  const bus = await own(
    () => natsBus(nc, logger, { prefix }),
    (b) => b.close(),
  )
  return { bus, workQueue: await natsWorkQueue(nc, logger, { stream: workStreamOf(config), prefix }) }
}

/** The work stream's name: as configured, or, with a prefix and the default name, one of the prefix's own. */
export function workStreamOf(config: Pick<Config, 'natsStream' | 'natsPrefix'>): string {
  if (!config.natsPrefix || config.natsStream !== DEFAULT_WORK_STREAM) return config.natsStream
  return `${config.natsPrefix.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase()}_${DEFAULT_WORK_STREAM}`
}

const DEFAULT_WORK_STREAM = 'AUTOMATON_WORK'

export async function openStore(config: Config, logger: Logger): Promise<Store> {
  if (config.databaseUrl) {
    const { postgresStore } = await import('../adapters/postgres/store.ts')
    const open = async () => {
      const store = postgresStore({ url: config.databaseUrl!, poolSize: config.pgPoolSize, logger })
      try {
        await store.ping()
        return store
      } catch (error) {
        await store.close()
        throw error
      }
    }
    return open().catch(async (error) => {
      const missing = await import('../adapters/postgres/create-database.ts')
      if (!missing.isMissingDatabase(error)) throw error
      await createMissingDatabase(config.databaseUrl!, logger)
      return open()
    })
  }
  ensureDir(config.dataDir)
  const options = {
    path: join(config.dataDir, 'automaton.db'),
    synchronous: config.sqliteSynchronous,
    backgroundCheckpoint: true,
    backgroundSync: true,
    logger,
  }
  // Bun's SQLite binding, or node:sqlite on Deno: the same file, the same durability.
  if (isBun) return (await import('../adapters/sqlite/store.ts')).sqliteStore(options)
  return (await import('../adapters/sqlite/node-store.ts')).nodeSqliteStore(options)
}

/** Creates the configured Postgres database that does not exist, or stops with one line naming `createdb`. */
async function createMissingDatabase(url: string, logger: Logger): Promise<void> {
  const { createDatabase, createdbCommand, databaseNameOf } = await import('../adapters/postgres/create-database.ts')
  const name = databaseNameOf(url)
  const refused = await createDatabase(url)
  if (refused)
    throw new ConfigError(
      `the database "${name}" does not exist and this role could not create it (${refused}): run \`${createdbCommand(url)}\` or point AUTOMATON_DATABASE_URL at an existing database`,
    )
  logger.info('created the database', { database: name })
}
