import process from 'node:process'
import { createHttpFacilitator } from '../adapters/x402/facilitator.ts'
import { type Config, settingOf } from '../core/config.ts'
import { buildCatalog } from '../core/plugin/catalog.ts'
import { createAgentService } from '../core/services/agents.ts'
import { createAppService } from '../core/services/apps.ts'
import { createBuilderChat } from '../core/services/builder-chat.ts'
import { createCatalogOptionsService } from '../core/services/catalog-options.ts'
import { createContractChat } from '../core/services/contract-chat.ts'
import { createExecutionHookService } from '../core/services/execution-hooks.ts'
import { createOrganizationSettingsService } from '../core/services/organization-settings.ts'
import { createOrganizationWebhookSecretService } from '../core/services/organization-webhook-secret.ts'
import { createRunService } from '../core/services/runs.ts'
import { createScheduleService } from '../core/services/schedules.ts'
import { createPollService } from '../core/services/polls.ts'
import { createSubscriptionSecrets, createSubscriptionService } from '../core/services/subscriptions.ts'
import { createNodeMigrationService } from '../core/services/node-migrations.ts'
import { createTemplateService } from '../core/services/templates.ts'
import { createUniverseService, situationSymbolsCheck } from '../core/services/universe.ts'
import { createWalletService } from '../core/services/wallets.ts'
import { createWebhookEventService } from '../core/services/webhook-events.ts'
import { createWebhookIntake } from '../core/services/webhook-intake.ts'
import { createWorkflowService } from '../core/services/workflows.ts'
import { createX402Service } from '../core/services/x402.ts'
import { SHIPPED_UNIVERSE_CSV } from '../plugins/markets/universe/tickers.csv.ts'
import type { Engine } from '../runtime/index.ts'
import { createPluginCalls } from '../runtime/plugin-host/calls.ts'
import { createMinIntervalGuard } from '../runtime/schedules/guard.ts'
import type { Access, Adapters, NodeServices, Services } from './types.ts'

/** The services of the API's resources, the agents' among them. */
export function createServices(
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
    subscriptions: engine.subscriptions,
    nodeTester: engine.nodeTester,
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
    polls: createPollService({ store, clock }),
    subscriptions: createSubscriptionService({ store }),
    catalogOptions: createCatalogOptionsService({
      registry,
      connectors,
      clock,
      calls: createPluginCalls({ http: base.http, clock, logger }),
    }),
    nodeMigrations: createNodeMigrationService({ store, registry, workflows }),
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
      subscriptionSecrets: createSubscriptionSecrets({ store, secretBox, registry }),
      router: engine.router,
      metrics: base.metrics,
      settings: (name) => settingOf(config, process.env, name),
    }),
  }
}

/** Where execution hooks may be sent: one policy for the API that registers them and for their delivery. */
export const hookPolicyOf = (config: Config) => ({
  allowHttp: config.hookAllowHttp,
  allowList: config.allowPrivateTargets,
})
