/**
 * The catalog's shapes: the specification's Trigger catalog entry, and the action and connector
 * type entries built the same way. Generated from the loaded plugins (core/plugin/catalog.ts).
 */
import { Type as t } from '@sinclair/typebox'

const Requirement = t.Union(
  [
    t.Object({
      type: t.String(),
      accountType: t.String({
        description: 'the wallet account type the connector needs; "" for any connector of the type',
      }),
      walletSupport: t.Optional(t.Array(t.String())),
      optional: t.Optional(t.Boolean({ description: 'the node may name a connector of this type, and need not' })),
    }),
    t.Null(),
  ],
  { description: 'the connector needed; null: none' },
)

const Schema = (description = 'JSON Schema') => t.Record(t.String(), t.Any(), { description })

/** The specification's Trigger catalog entry, with the plugin that provides it. */
export const TriggerEntry = t.Object(
  {
    type: t.String(),
    name: t.String(),
    description: t.String(),
    documentationUrl: t.String(),
    logoUrl: t.String(),
    platform: t.String({ description: 'the platform word (docs/catalog.md)' }),
    createdBy: t.String(),
    plugin: t.String(),
    tags: t.Array(t.String()),
    connector: Requirement,
    version: t.Integer({ minimum: 1, description: "the latest version of the type; its schemas are this version's" }),
    versions: t.Array(t.Integer({ minimum: 1 }), {
      description: 'every version loaded, ascending: nodes saved with an older one keep running it',
    }),
    payloadSchema: Schema("the trigger node's payload (its configuration)"),
    resultSchema: Schema('the event a run starts with: {{root.result…}}'),
    waitPayloadSchema: t.Union([Schema(), t.Null()], {
      description: 'what a wait node on this trigger may match; null: not waitable',
    }),
  },
  { $id: 'TriggerEntry' },
)

export const ActionEntry = t.Object(
  {
    type: t.String(),
    name: t.String(),
    description: t.String(),
    documentationUrl: t.String(),
    logoUrl: t.String(),
    createdBy: t.String(),
    plugin: t.String(),
    tags: t.Array(t.String()),
    connector: Requirement,
    version: t.Integer({ minimum: 1, description: "the latest version of the type; its schemas are this version's" }),
    versions: t.Array(t.Integer({ minimum: 1 }), {
      description: 'every version loaded, ascending: nodes saved with an older one keep running it',
    }),
    payloadSchema: Schema("the node's payload"),
    resultSchema: Schema("the node's result"),
    branches: t.Array(t.String(), { description: 'branch names children may take; empty: no branches' }),
    loop: t.Boolean({ description: 'a loop node (runs loopBody per item)' }),
  },
  { $id: 'ActionEntry' },
)

export const ConnectorTypeEntry = t.Object(
  {
    type: t.String(),
    name: t.String(),
    description: t.String(),
    provider: t.String(),
    documentationUrl: t.String(),
    logoUrl: t.String(),
    createdBy: t.String(),
    plugin: t.String(),
    tags: t.Array(t.String()),
    accountType: t.String({ description: 'the wallet account type it needs; "" for none' }),
    walletSupport: t.Union([t.Array(t.String()), t.Null()]),
    dataSchema: Schema('what POST /v1/connectors takes as data'),
    secretFields: t.Array(t.String(), {
      description: 'fields of data that are encrypted at rest and masked on output',
    }),
  },
  { $id: 'ConnectorTypeEntry' },
)
