/**
 * The catalog entries of the loaded plugins, as the catalog endpoints serve them: triggers in
 * the specification's Trigger catalog entry shape, actions and connector types in the same
 * spirit. Each action and trigger type is listed once, at its latest version, with every version
 * loaded. Schemas are plain JSON Schema (TypeBox's symbols stripped). Computed once per
 * registry; filtering by tags is a lookup, not a rebuild.
 */
import type { Static, TSchema } from '@sinclair/typebox'
import type {
  ActionEntry as ActionEntrySchema,
  ConnectorTypeEntry as ConnectorTypeEntrySchema,
  TriggerEntry as TriggerEntrySchema,
} from '../domain/catalog.ts'
import type { ConnectorRequirement, PluginDefinition } from './definitions.ts'
import { markOptionField } from './option-fields.ts'
import { type Registry, versionOf } from './registry.ts'
import { secretFieldsOf } from './schemas.ts'

export type JsonSchema = Record<string, unknown>

/** The entries' types are the catalog schemas' (core/domain/catalog.ts): one name per schema and type. */
export type TriggerEntry = Static<typeof TriggerEntrySchema>
export type ActionEntry = Static<typeof ActionEntrySchema>
export type ConnectorTypeEntry = Static<typeof ConnectorTypeEntrySchema>
export type CatalogConnector = NonNullable<TriggerEntry['connector']>

export interface Catalog {
  triggers: readonly TriggerEntry[]
  actions: readonly ActionEntry[]
  connectorTypes: readonly ConnectorTypeEntry[]
}

/** Plain JSON Schema: JSON drops TypeBox's symbol keys. */
export function jsonSchemaOf(schema: TSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema)) as JsonSchema
}

/** Marks the payload fields whose allowed values the plugin loads (`POST /v1/catalog/…/{type}/options`). */
export const DYNAMIC_OPTIONS = 'x-dynamic-options'

/** A payload's JSON Schema with `"x-dynamic-options": true` on each field with an option loader, nested or not. */
function payloadSchemaOf(payload: TSchema, options: Readonly<Record<string, unknown>> | undefined): JsonSchema {
  const schema = jsonSchemaOf(payload)
  for (const field of Object.keys(options ?? {})) markOptionField(schema, field, DYNAMIC_OPTIONS)
  return schema
}

function connectorOf(requirement: ConnectorRequirement | null | undefined): CatalogConnector | null {
  if (!requirement) return null
  return {
    type: requirement.type,
    accountType: requirement.accountType ?? '',
    ...(requirement.walletSupport !== undefined ? { walletSupport: [...requirement.walletSupport] } : {}),
    ...(requirement.optional ? { optional: true } : {}),
  }
}

const byType = <T extends { type: string }>(a: T, b: T) => a.type.localeCompare(b.type)

export function buildCatalog(registry: Registry): Catalog {
  const owner = (kind: 'action' | 'trigger' | 'connector', type: string) =>
    registry.pluginOf(kind, type) as PluginDefinition
  const triggers = registry.triggers().map((t): TriggerEntry => {
    const plugin = owner('trigger', t.type)
    return {
      type: t.type,
      name: t.name,
      description: t.description,
      documentationUrl: t.documentationUrl ?? '',
      logoUrl: t.logoUrl ?? '',
      platform: t.platform ?? plugin.id,
      createdBy: plugin.author ?? plugin.id,
      plugin: plugin.id,
      tags: [...(t.tags ?? [])],
      connector: connectorOf(t.connector),
      version: versionOf(t),
      versions: [...registry.versions('trigger', t.type)],
      payloadSchema: payloadSchemaOf(t.payload, t.options),
      resultSchema: jsonSchemaOf(t.result),
      waitPayloadSchema: t.waitPayload ? jsonSchemaOf(t.waitPayload) : null,
    }
  })
  const actions = registry.actions().map((a): ActionEntry => {
    const plugin = owner('action', a.type)
    return {
      type: a.type,
      name: a.name,
      description: a.description,
      documentationUrl: a.documentationUrl ?? '',
      logoUrl: a.logoUrl ?? '',
      createdBy: plugin.author ?? plugin.id,
      plugin: plugin.id,
      tags: [...(a.tags ?? [])],
      connector: connectorOf(a.connector),
      version: versionOf(a),
      versions: [...registry.versions('action', a.type)],
      payloadSchema: payloadSchemaOf(a.payload, a.options),
      resultSchema: jsonSchemaOf(a.result),
      branches: [...(a.branches ?? [])],
      loop: a.loop === true,
    }
  })
  const connectorTypes = registry.connectors().map((c): ConnectorTypeEntry => {
    const plugin = owner('connector', c.type)
    return {
      type: c.type,
      name: c.name,
      description: c.description,
      provider: c.provider,
      documentationUrl: c.documentationUrl ?? '',
      logoUrl: c.logoUrl ?? '',
      createdBy: plugin.author ?? plugin.id,
      plugin: plugin.id,
      tags: [...(c.tags ?? [])],
      accountType: c.accountType ?? '',
      walletSupport: c.walletSupport ? [...c.walletSupport] : null,
      dataSchema: jsonSchemaOf(c.data),
      secretFields: secretFieldsOf(c.data),
    }
  })
  return { triggers: triggers.sort(byType), actions: actions.sort(byType), connectorTypes: connectorTypes.sort(byType) }
}

/** Entries carrying every one of `tags` (all must match). */
export function withTags<T extends { tags: string[] }>(entries: readonly T[], tags: readonly string[]): T[] {
  return entries.filter((e) => tags.every((tag) => e.tags.includes(tag)))
}

/** Every tag slug a catalog entry carries: the tags a person may choose as interests until templates bring their own. */
export function catalogTags(catalog: Catalog): Set<string> {
  const tags = new Set<string>()
  for (const e of [...catalog.triggers, ...catalog.actions, ...catalog.connectorTypes])
    for (const tag of e.tags) tags.add(tag)
  return tags
}
