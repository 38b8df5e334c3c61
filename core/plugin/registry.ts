/**
 * The registry: the loaded plugins, checked and indexed by type. The engine looks up actions
 * and triggers here; the catalog endpoints list from here. It refuses a plugin set with
 * duplicate types or malformed definitions, naming the plugin and the problem.
 */
import { Kind, type TObject, type TSchema } from '@sinclair/typebox'
import type { ActionDefinition, PluginDefinition, TriggerDefinition } from './sdk.ts'

export type AnyAction = ActionDefinition<TObject, TSchema>
export type AnyTrigger = TriggerDefinition<TObject, TSchema>

export interface Registry {
  readonly plugins: readonly PluginDefinition[]
  action(type: string): AnyAction | undefined
  trigger(type: string): AnyTrigger | undefined
  actions(): readonly AnyAction[]
  triggers(): readonly AnyTrigger[]
  /** The plugin that provides a type. */
  pluginOf(type: string): PluginDefinition | undefined
}

export class PluginError extends Error {
  override name = 'PluginError'
  constructor(readonly pluginId: string, problem: string) {
    super(`plugin "${pluginId}": ${problem}`)
  }
}

const TYPE_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/
const PLUGIN_ID = /^[a-z][a-z0-9-]{0,62}$/

const isSchema = (s: unknown): s is TSchema => !!s && typeof s === 'object' && Kind in (s as object)

export function createRegistry(plugins: readonly PluginDefinition[]): Registry {
  const actions = new Map<string, AnyAction>()
  const triggers = new Map<string, AnyTrigger>()
  const owners = new Map<string, PluginDefinition>()
  const ids = new Set<string>()

  for (const plugin of plugins) {
    const id = typeof plugin?.id === 'string' ? plugin.id : '(unnamed)'
    if (!PLUGIN_ID.test(id)) throw new PluginError(id, 'id must be lower-case letters, digits and dashes')
    if (ids.has(id)) throw new PluginError(id, 'another plugin has the same id')
    ids.add(id)
    for (const action of plugin.actions ?? []) {
      checkCommon(id, 'action', action)
      if (!isSchema(action.result)) throw new PluginError(id, `action "${action.type}" needs a TypeBox result schema`)
      if (typeof action.run !== 'function') throw new PluginError(id, `action "${action.type}" needs a run(ctx) function`)
      claim(id, action.type, plugin)
      actions.set(action.type, action)
    }
    for (const trigger of plugin.triggers ?? []) {
      checkCommon(id, 'trigger', trigger)
      if (!isSchema(trigger.result)) throw new PluginError(id, `trigger "${trigger.type}" needs a TypeBox result schema`)
      claim(id, trigger.type, plugin)
      triggers.set(trigger.type, trigger)
    }
  }

  function claim(id: string, type: string, plugin: PluginDefinition) {
    const owner = owners.get(type)
    if (owner) throw new PluginError(id, `type "${type}" is already provided by plugin "${owner.id}"`)
    owners.set(type, plugin)
  }

  return Object.freeze({
    plugins,
    action: (type: string) => actions.get(type),
    trigger: (type: string) => triggers.get(type),
    actions: () => [...actions.values()],
    triggers: () => [...triggers.values()],
    pluginOf: (type: string) => owners.get(type),
  })
}

function checkCommon(pluginId: string, kind: string, def: { type?: unknown; name?: unknown; description?: unknown; payload?: unknown }) {
  if (typeof def?.type !== 'string' || !TYPE_NAME.test(def.type)) {
    throw new PluginError(pluginId, `${kind} type ${JSON.stringify(def?.type)} must be lower-case words joined by dashes`)
  }
  if (typeof def.name !== 'string' || !def.name) throw new PluginError(pluginId, `${kind} "${def.type}" needs a name`)
  if (typeof def.description !== 'string') throw new PluginError(pluginId, `${kind} "${def.type}" needs a description`)
  if (!isSchema(def.payload) || (def.payload as TSchema).type !== 'object') {
    throw new PluginError(pluginId, `${kind} "${def.type}" needs a TypeBox object schema as payload`)
  }
}
