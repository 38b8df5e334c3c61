import { createOpenAiCompatibleProvider } from '../adapters/openai/provider.ts'
import { createAiService } from '../core/services/ai.ts'
import { createCardService } from '../core/services/cards.ts'
import { createConnectorOAuth2Service } from '../core/services/connector-oauth2.ts'
import { createConnectorService } from '../core/services/connectors.ts'
import { createSecretMasks } from '../core/services/secret-masks.ts'
import { createX402Endpoints } from '../core/services/x402-endpoints.ts'
import { agentStore } from '../core/store/agents.ts'
import { createPluginCalls } from '../runtime/plugin-host/calls.ts'
import type { Adapters, NodeServices } from './types.ts'

/** What the engine's nodes call besides the plugins' own code: masks, AI, connectors, cards, x402 endpoints. */
export function createNodeServices({
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
  const connectorOAuth2 = createConnectorOAuth2Service({
    store,
    clock,
    registry,
    secretBox,
    http,
    publicUrl: config.publicUrl,
    owner: ids.next('wkr'),
  })
  return {
    masks,
    ai,
    connectorOAuth2,
    connectors: createConnectorService({
      store,
      clock,
      ids,
      registry,
      secretBox,
      onChange: forget,
      oauth2: connectorOAuth2,
      checks: createPluginCalls({ http, clock, logger }),
    }),
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
