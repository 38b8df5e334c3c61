/**
 * Migrating saved node payloads between versions of their type. A node saved with version n of
 * a type is brought to the latest by each newer version's `migrate`, in turn (n+1, n+2 …). Pure:
 * it reads the registry and returns new definitions; saving them is the caller's.
 */
import type { Definition, NodeDefinition } from '../domain/workflow.ts'
import { canonicalJson } from '../json.ts'
import { type Registry, versionOf } from './registry.ts'

/** What migrating one node changes; `after` is null and `error` set when a migrate function threw. */
export interface PlannedMigration {
  nodeId: string
  type: string
  fromVersion: number
  toVersion: number
  before: Record<string, unknown>
  after: Record<string, unknown> | null
  changedFields: string[]
  error?: string
}

/** The migrations of a definition and the definition they give (nodes that failed keep their old version). */
export interface DefinitionMigration {
  migrations: PlannedMigration[]
  definition: Definition
}

/** Migrates every node older than the latest version of its type (only of `types`, when given). */
export function migrateDefinition(
  registry: Registry,
  definition: Definition,
  types?: readonly string[],
): DefinitionMigration {
  const triggerIds = new Set(definition.triggerNodeIds ?? ['root'])
  const migrations: PlannedMigration[] = []
  const nodes: Record<string, NodeDefinition> = { ...definition.nodes }
  for (const [nodeId, node] of Object.entries(definition.nodes)) {
    if (types && !types.includes(node.type)) continue
    const kind = triggerIds.has(nodeId) ? 'trigger' : 'action'
    const latest = kind === 'trigger' ? registry.trigger(node.type) : registry.action(node.type)
    if (!latest || node.typeVersion === undefined || node.typeVersion >= versionOf(latest)) continue
    const migration = migrateNode(registry, kind, nodeId, node, versionOf(latest))
    migrations.push(migration)
    if (migration.after) nodes[nodeId] = { ...node, typeVersion: migration.toVersion, payload: migration.after }
  }
  return { migrations, definition: migrations.length > 0 ? { ...definition, nodes } : definition }
}

function migrateNode(
  registry: Registry,
  kind: 'action' | 'trigger',
  nodeId: string,
  node: NodeDefinition,
  toVersion: number,
): PlannedMigration {
  const fromVersion = node.typeVersion as number
  const before = node.payload ?? {}
  const planned = { nodeId, type: node.type, fromVersion, toVersion, before }
  let payload = structuredClone(before)
  for (let version = fromVersion + 1; version <= toVersion; version++) {
    const def = kind === 'trigger' ? registry.trigger(node.type, version) : registry.action(node.type, version)
    const failed = (error: string) => ({ ...planned, after: null, changedFields: [], error })
    if (!def?.migrate) return failed(`no loaded version of "${node.type}" migrates version ${version - 1} payloads`)
    try {
      payload = def.migrate(payload)
    } catch (error) {
      return failed(`version ${version}'s migrate threw: ${error instanceof Error ? error.message : String(error)}`)
    }
    if (!payload || typeof payload !== 'object' || Array.isArray(payload))
      return failed(`version ${version}'s migrate did not return a payload object`)
  }
  return { ...planned, after: payload, changedFields: changedFields(before, payload) }
}

/** The top-level fields whose values differ, sorted. */
function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)])
  const differs = (k: string) => k in before !== k in after || canonicalJson(before[k]) !== canonicalJson(after[k])
  return [...keys].filter(differs).sort()
}

/**
 * Gives each node without a `typeVersion` the latest version of its type, so that a plugin
 * shipping a newer version later does not change what a saved node runs. Nodes of unknown types
 * are left as they are (the check names them); a definition with nothing to pin is returned as is.
 */
export function pinVersions(registry: Registry, definition: Definition): Definition {
  if (!definition?.nodes || typeof definition.nodes !== 'object') return definition
  const triggerIds = new Set(definition.triggerNodeIds ?? ['root'])
  let changed = false
  const nodes = Object.fromEntries(
    Object.entries(definition.nodes).map(([id, node]) => {
      if (!node || typeof node !== 'object' || node.typeVersion !== undefined) return [id, node]
      const latest = triggerIds.has(id) ? registry.trigger(node.type) : registry.action(node.type)
      if (!latest) return [id, node]
      changed = true
      return [id, { ...node, typeVersion: versionOf(latest) }]
    }),
  )
  return changed ? { ...definition, nodes } : definition
}
