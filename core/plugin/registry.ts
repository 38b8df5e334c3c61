/**
 * The registry: the loaded plugins, checked and indexed. The engine looks up actions and
 * triggers here, the connector service its connector types, the integration routes the
 * webhooks, and the catalog endpoints list from here. It refuses a plugin set with duplicate
 * types, malformed definitions or references to unknown connector types, naming the plugin and
 * the problem. Actions, triggers and connectors are separate namespaces: `approval` is both a
 * trigger type and an action.
 *
 * An action or trigger type may come in several versions (see `Versioned`): the registry keeps
 * every one, `action(type)` answers the latest and `action(type, version)` a given one, so a
 * node saved with an older version keeps running it beside nodes on the newer one.
 */
import {
  checkAction,
  checkAgent,
  checkConnector,
  checkTrigger,
  checkVersions,
  checkWebhook,
  PLUGIN_ID,
  PluginError,
  versionOf,
} from './checks.ts'
import type { AnyAction, AnyAgent, AnyConnector, AnyTrigger, AnyWebhook, PluginDefinition } from './definitions.ts'

export type { AnyAction, AnyAgent, AnyConnector, AnyTrigger, AnyWebhook }
export { PluginError, versionOf }

export type RegistryKind = 'action' | 'trigger' | 'connector' | 'agent'
/** The kinds whose types are versioned. */
export type VersionedKind = 'action' | 'trigger'

/** A webhook with the plugin that provides it. */
export interface RegisteredWebhook {
  readonly pluginId: string
  readonly webhook: AnyWebhook
}

export interface Registry {
  readonly plugins: readonly PluginDefinition[]
  /** The latest version of an action type, or the given version (undefined: the latest). */
  action(type: string, version?: number): AnyAction | undefined
  /** The latest version of a trigger type, or the given version (undefined: the latest). */
  trigger(type: string, version?: number): AnyTrigger | undefined
  connector(type: string): AnyConnector | undefined
  /** The latest version of every action type. */
  actions(): readonly AnyAction[]
  /** The latest version of every trigger type. */
  triggers(): readonly AnyTrigger[]
  /** The versions loaded of a type, ascending (empty when no plugin provides it). */
  versions(kind: VersionedKind, type: string): readonly number[]
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
  /** Every version of each action and trigger type; `index` holds the latest. */
  const versioned: Record<VersionedKind, Map<string, Map<number, AnyAction | AnyTrigger>>> = {
    action: new Map(),
    trigger: new Map(),
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
  /** Adds one version of a type; all versions of a type come from one plugin, each version once. */
  const claimVersion = (kind: VersionedKind, plugin: PluginDefinition, def: AnyAction | AnyTrigger) => {
    const owner = index[kind].get(def.type)
    if (!owner) {
      index[kind].set(def.type, { def, plugin })
      versioned[kind].set(def.type, new Map([[versionOf(def), def]]))
      return
    }
    if (owner.plugin !== plugin)
      throw new PluginError(plugin.id, `${kind} type "${def.type}" is already provided by plugin "${owner.plugin.id}"`)
    const versions = versioned[kind].get(def.type)!
    if (versions.has(versionOf(def)))
      throw new PluginError(plugin.id, `${kind} "${def.type}" lists version ${versionOf(def)} twice`)
    versions.set(versionOf(def), def)
    if (versionOf(def) > versionOf(owner.def as AnyAction)) index[kind].set(def.type, { def, plugin })
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
      claimVersion('action', plugin, action)
    }
    for (const trigger of plugin.triggers ?? []) {
      need(id, `trigger "${trigger?.type}"`, checkTrigger(id, trigger))
      claimVersion('trigger', plugin, trigger)
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
  for (const kind of ['action', 'trigger'] as const) {
    for (const [type, versions] of versioned[kind])
      checkVersions((index[kind].get(type) as { plugin: PluginDefinition }).plugin.id, kind, type, versions)
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
        if (action.connector && !action.connector.optional)
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
  const lookupVersion =
    <T>(kind: VersionedKind) =>
    (type: string, version?: number) =>
      (version === undefined ? index[kind].get(type)?.def : versioned[kind].get(type)?.get(version)) as T | undefined
  const all =
    <T>(kind: RegistryKind) =>
    () =>
      [...index[kind].values()].map((e) => e.def as T)
  return Object.freeze({
    plugins,
    action: lookupVersion<AnyAction>('action'),
    trigger: lookupVersion<AnyTrigger>('trigger'),
    connector: lookup<AnyConnector>('connector'),
    actions: all<AnyAction>('action'),
    triggers: all<AnyTrigger>('trigger'),
    versions: (kind: VersionedKind, type: string) =>
      [...(versioned[kind].get(type)?.keys() ?? [])].sort((a, b) => a - b),
    connectors: all<AnyConnector>('connector'),
    webhooks: () => webhooks,
    agent: lookup<AnyAgent>('agent'),
    agents: all<AnyAgent>('agent'),
    pluginOf: (kind: RegistryKind, type: string) => index[kind].get(type)?.plugin,
  })
}
