/**
 * Turning an external plugin module into a checked plugin. A module's default export is either
 * a plugin object or a function that receives the SDK and returns one (possibly async), so a
 * plugin file needs no import of the host. Reading files is the adapters' job
 * (adapters/files/plugins-dir.ts); this file only interprets what was imported.
 */
import type { PluginDefinition } from './definitions.ts'
import { createRegistry, PluginError, type Registry } from './registry.ts'
import { definePlugin, sdk } from './sdk.ts'
import { errorMessage } from '../errors.ts'

/** A plugin that failed to load, with the file it came from. */
export class PluginLoadError extends Error {
  override name = 'PluginLoadError'
  constructor(
    readonly source: string,
    readonly problem: string,
  ) {
    super(`plugin file ${source}: ${problem}`)
  }
}

export interface LoadedPlugin {
  readonly plugin: PluginDefinition
  /** Where it came from (a file name); absent for built-in plugins. */
  readonly source?: string
}

/** Interprets an imported module namespace as a plugin. */
export async function pluginFromModule(module: unknown, source: string): Promise<PluginDefinition> {
  const exported = (module as { default?: unknown } | null)?.default
  if (exported === undefined)
    throw new PluginLoadError(source, 'has no default export; export default (sdk) => sdk.definePlugin({ … })')
  let value: unknown = exported
  if (typeof exported === 'function') {
    try {
      value = await (exported as (s: typeof sdk) => unknown)(sdk)
    } catch (error) {
      throw new PluginLoadError(source, `its default export threw: ${errorMessage(error)}`)
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new PluginLoadError(
      source,
      'the default export must be a plugin object, or a function of the SDK that returns one',
    )
  }
  const plugin = value as PluginDefinition
  if (typeof plugin.id !== 'string') throw new PluginLoadError(source, 'the plugin has no id')
  try {
    return definePlugin(plugin)
  } catch (error) {
    throw new PluginLoadError(source, errorMessage(error))
  }
}

/** Builds the registry; a problem in an external plugin is reported with its file. */
export function createRegistryOf(plugins: readonly LoadedPlugin[]): Registry {
  try {
    return createRegistry(plugins.map((p) => p.plugin))
  } catch (error) {
    const source =
      error instanceof PluginError ? plugins.findLast((p) => p.plugin?.id === error.pluginId)?.source : undefined
    if (source && error instanceof PluginError) throw new PluginLoadError(source, error.message)
    throw error
  }
}
