/**
 * The registry: the loaded plugins, checked and indexed. The engine looks up actions and
 * triggers here, the connector service its connector types, the integration routes the
 * webhooks, and the catalog endpoints list from here. It refuses a plugin set with duplicate
 * types, malformed definitions or references to unknown connector types, naming the plugin and
 * the problem. Actions, triggers and connectors are separate namespaces: `approval` is both a
 * trigger type and an action.
 */
import {
  checkAction,
  checkAgent,
  checkConnector,
  checkTrigger,
  checkWebhook,
  PLUGIN_ID,
  PluginError,
} from './checks.ts'
import type { AnyAction, AnyAgent, AnyConnector, AnyTrigger, AnyWebhook, PluginDefinition } from './definitions.ts'

export type { AnyAction, AnyAgent, AnyConnector, AnyTrigger, AnyWebhook }
export { PluginError }

export type RegistryKind = 'action' | 'trigger' | 'connector' | 'agent'

/** A webhook with the plugin that provides it. */
export interface RegisteredWebhook {
  readonly pluginId: string
  readonly webhook: AnyWebhook
}

export interface Registry {
  readonly plugins: readonly PluginDefinition[]
  action(type: string): AnyAction | undefined
  trigger(type: string): AnyTrigger | undefined
  connector(type: string): AnyConnector | undefined
  actions(): readonly AnyAction[]
  triggers(): readonly AnyTrigger[]
  connectors(): readonly AnyConnector[]
  webhooks(): readonly RegisteredWebhook[]
  agent(type: string): AnyAgent | undefined
  agents(): readonly AnyAgent[]
  /** The plugin that provides a type of that kind. */
  pluginOf(kind: RegistryKind, type: string): PluginDefinition | undefined
}

export function createRegistry(plugins: readonly PluginDefinition[]): Registry {
  const index: Record<RegistryKind, Map<string, { def: unknown; plugin: PluginDefinition }>> = {
    action: new Map(),
    trigger: new Map(),
    connector: new Map(),
    agent: new Map(),
  }
  const webhooks: RegisteredWebhook[] = []
  const paths = new Map<string, string>()
  const ids = new Set<string>()
  const needed: Array<{ pluginId: string; where: string; type: string }> = []

  const claim = (kind: RegistryKind, plugin: PluginDefinition, type: string, def: unknown) => {
    const owner = index[kind].get(type)
    if (owner)
      throw new PluginError(plugin.id, `${kind} type "${type}" is already provided by plugin "${owner.plugin.id}"`)
    index[kind].set(type, { def, plugin })
  }
  const need = (pluginId: string, where: string, type: string | null) => {
    if (type) needed.push({ pluginId, where, type })
  }

  for (const plugin of plugins) {
    if (!plugin || typeof plugin !== 'object')
      throw new PluginError('(unnamed)', 'a plugin must be an object made with definePlugin()')
    const id = typeof plugin.id === 'string' ? plugin.id : '(unnamed)'
    if (!PLUGIN_ID.test(id)) throw new PluginError(id, 'id must be lower-case letters, digits and dashes, at most 63')
    if (ids.has(id)) throw new PluginError(id, 'another plugin has the same id')
    ids.add(id)
    for (const field of ['triggers', 'actions', 'connectors', 'webhooks', 'agents'] as const) {
      if (plugin[field] !== undefined && !Array.isArray(plugin[field]))
        throw new PluginError(id, `${field} must be a list`)
    }
    const connectors = [...(plugin.connector ? [plugin.connector] : []), ...(plugin.connectors ?? [])]
    for (const connector of new Set(connectors)) {
      checkConnector(id, connector)
      claim('connector', plugin, connector.type, connector)
    }
    for (const action of plugin.actions ?? []) {
      need(id, `action "${action?.type}"`, checkAction(id, action))
      claim('action', plugin, action.type, action)
    }
    for (const trigger of plugin.triggers ?? []) {
      need(id, `trigger "${trigger?.type}"`, checkTrigger(id, trigger))
      claim('trigger', plugin, trigger.type, trigger)
    }
    const names = new Set<string>()
    for (const webhook of plugin.webhooks ?? []) {
      need(id, `webhook "${webhook?.name}"`, checkWebhook(id, webhook))
      if (names.has(webhook.name)) throw new PluginError(id, `two webhooks are named "${webhook.name}"`)
      names.add(webhook.name)
      const route = webhook.path.replace(/:[A-Za-z0-9]+/g, ':')
      const taken = paths.get(route)
      if (taken)
        throw new PluginError(
          id,
          `webhook "${webhook.name}": path ${webhook.path} is already used by plugin "${taken}"`,
        )
      paths.set(route, id)
      webhooks.push(Object.freeze({ pluginId: id, webhook }))
    }
  }
  for (const n of needed) {
    if (!index.connector.has(n.type))
      throw new PluginError(n.pluginId, `${n.where} needs connector type "${n.type}", which no loaded plugin defines`)
  }
  // Agents last: their tools may come from any plugin.
  for (const plugin of plugins) {
    for (const agent of plugin.agents ?? []) {
      checkAgent(plugin.id, agent)
      for (const tool of agent.tools) {
        const action = index.action.get(tool)?.def as AnyAction | undefined
        if (!action)
          throw new PluginError(
            plugin.id,
            `agent "${agent.type}" names tool "${tool}", which no loaded plugin provides as an action`,
          )
        if (action.connector)
          throw new PluginError(
            plugin.id,
            `agent "${agent.type}": tool "${tool}" needs a connector, which agents cannot open`,
          )
      }
      claim('agent', plugin, agent.type, agent)
    }
  }

  const lookup =
    <T>(kind: RegistryKind) =>
    (type: string) =>
      index[kind].get(type)?.def as T | undefined
  const all =
    <T>(kind: RegistryKind) =>
    () =>
      [...index[kind].values()].map((e) => e.def as T)
  return Object.freeze({
    plugins,
    action: lookup<AnyAction>('action'),
    trigger: lookup<AnyTrigger>('trigger'),
    connector: lookup<AnyConnector>('connector'),
    actions: all<AnyAction>('action'),
    triggers: all<AnyTrigger>('trigger'),
    connectors: all<AnyConnector>('connector'),
    webhooks: () => webhooks,
    agent: lookup<AnyAgent>('agent'),
    agents: all<AnyAgent>('agent'),
    pluginOf: (kind: RegistryKind, type: string) => index[kind].get(type)?.plugin,
  })
}
