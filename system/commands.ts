/**
 * The smaller system a one-shot command opens (`orgs`, `keys`, `users`, `credits`, `universe`,
 * `migrate`, `master-key rotate`): the store with its schema brought up to date, the keyring and
 * the services those commands call. It loads no plugin, builds no HTTP app, connects to no NATS
 * and starts nothing, so a command answers in a fraction of a second; the serving system
 * (index.ts) stays the one that does all of that.
 */
import process from 'node:process'
import { memoryBus } from '../adapters/memory/bus.ts'
import { openKeyring } from '../adapters/files/keyring.ts'
import type { Config } from '../core/config.ts'
import { createIds } from '../core/ids.ts'
import { createJsonLogger } from '../core/logger.ts'
import { systemClock } from '../core/ports/clock.ts'
import type { Logger } from '../core/ports/logger.ts'
import { openAuditKey } from '../core/services/audit-key.ts'
import { type AuditLog, createAuditLog } from '../core/services/audit-log.ts'
import { auditedIds } from '../core/services/audit-context.ts'
import { auditedStore } from '../core/services/audit-store.ts'
import { createAuthService } from '../core/services/auth.ts'
import { createUniverseService } from '../core/services/universe.ts'
import { MIGRATIONS } from '../core/store/migrations.ts'
import { SHIPPED_UNIVERSE_CSV } from '../plugins/markets/universe/tickers.csv.ts'
import type { CliSystem } from '../adapters/cli/host.ts'
import { openStore } from './adapters.ts'
import { createKeysAndOrganizations, openPeopleAndSignOn } from './accounts.ts'

/** The tags the plugins declare, loaded only when a command needs them (a person's interests). */
async function pluginTags(config: Config): Promise<Set<string>> {
  const [{ BUILT_IN_PLUGINS }, { loadPluginsDir }, { createRegistryOf }, { buildCatalog, catalogTags }] =
    await Promise.all([
      import('../plugins/index.ts'),
      import('../adapters/files/plugins-dir.ts'),
      import('../core/plugin/load.ts'),
      import('../core/plugin/catalog.ts'),
    ])
  const external = config.pluginsDir ? await loadPluginsDir(config.pluginsDir) : []
  const registry = createRegistryOf([...BUILT_IN_PLUGINS.map((plugin) => ({ plugin })), ...external])
  return new Set(catalogTags(buildCatalog(registry)))
}

/** Opens what a one-shot command uses; `close()` releases it. */
export async function openCommandSystem(config: Config, options: { logger?: Logger } = {}): Promise<CliSystem> {
  const logger = options.logger ?? createJsonLogger(config.logLevel, (line) => process.stderr.write(line))
  const clock = systemClock
  const ids = auditedIds(createIds(clock))
  const raw = await openStore(config, logger)
  // The operator's commands are recorded in the audit log, in the transaction of their change.
  let audit: AuditLog | undefined
  const store = auditedStore(raw, () => audit!)
  const bus = memoryBus(logger)
  const auth = createAuthService({ store, clock, bus, logger })
  const close = async () => {
    await auth.stop()
    await bus.close()
    await store.close()
  }
  try {
    await store.migrate(MIGRATIONS)
    const secretBox = await openKeyring(config, logger, store, clock)
    const accounts = { config, logger, clock, ids, store, auth }
    const { apiKeys, organizations } = createKeysAndOrganizations(accounts)
    if (config.bootstrapKey) await organizations.bootstrap(config.bootstrapKey)
    const { people, oidc } = await openPeopleAndSignOn({ ...accounts, secretBox, pluginTags: () => pluginTags(config) })
    const universe = createUniverseService({
      store,
      clock,
      logger,
      enabled: config.situationUniverse,
      shipped: () => SHIPPED_UNIVERSE_CSV,
    })
    audit = createAuditLog({ store: raw, clock, ids, key: await openAuditKey(raw, secretBox, clock) })
    return { config, logger, clock, store, secretBox, organizations, apiKeys, people, oidc, universe, audit, close }
  } catch (error) {
    await close()
    throw error
  }
}
