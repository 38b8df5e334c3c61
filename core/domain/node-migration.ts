/**
 * Node migrations as the API shows them: what bringing a workflow's nodes to the latest version
 * of their types changes, node by node (`POST /v1/workflows/{id}/migrate-nodes`), and the same
 * for every workflow of an organization (`GET /v1/node-migrations`).
 */
import { type Static, Type as t } from '@sinclair/typebox'

export const NodeMigration = t.Object({
  nodeId: t.String(),
  type: t.String({ description: "the node's action or trigger type" }),
  fromVersion: t.Integer({ description: 'the version the node is saved with' }),
  toVersion: t.Integer({ description: 'the latest version of its type' }),
  before: t.Record(t.String(), t.Unknown(), { description: 'the payload as saved' }),
  after: t.Union([t.Record(t.String(), t.Unknown()), t.Null()], {
    description: "the payload after each version's migrate(payload), in turn; null when a migration failed",
  }),
  changedFields: t.Array(t.String(), { description: 'top-level payload fields that differ between before and after' }),
  error: t.Optional(t.String({ description: 'why the migration failed (the organization-wide listing only)' })),
})
export type NodeMigration = Static<typeof NodeMigration>

export const MigrateNodesBody = t.Object({
  dryRun: t.Optional(t.Boolean({ description: 'list the changes without writing a draft', default: false })),
  types: t.Optional(
    t.Array(t.String({ minLength: 1, maxLength: 100 }), {
      maxItems: 100,
      description: 'migrate only nodes of these types (all types when absent)',
    }),
  ),
})
export type MigrateNodesBody = Static<typeof MigrateNodesBody>

export const NodeMigrationResult = t.Object({
  workflowId: t.String(),
  dryRun: t.Boolean(),
  fromVersion: t.Integer({
    description: 'the workflow version the nodes were read from (its draft, else its live one)',
  }),
  draftVersion: t.Union([t.Integer(), t.Null()], {
    description: 'the draft written with the migrated nodes; null on a dry run or when nothing needed migrating',
  }),
  migrations: t.Array(NodeMigration),
})
export type NodeMigrationResult = Static<typeof NodeMigrationResult>

export const WorkflowNodeMigrations = t.Object({
  workflowId: t.String(),
  name: t.String(),
  version: t.Integer({ description: 'the workflow version read (its draft, else its live one)' }),
  migrations: t.Array(NodeMigration),
})
export type WorkflowNodeMigrations = Static<typeof WorkflowNodeMigrations>

export const NodeMigrationsQuery = t.Object({
  type: t.Optional(t.String({ minLength: 1, maxLength: 100, description: 'only nodes of this type' })),
})
