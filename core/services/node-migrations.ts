/**
 * Node migrations: bringing the nodes of a workflow from the version of their type they were
 * saved with to the latest, by each newer version's `migrate`. A dry run lists what would change;
 * applying writes the migrated definition as the workflow's draft (the live version keeps running
 * until the draft is published). The organization-wide listing is a dry run of every workflow.
 */
import type { PageRequest } from '../domain/common.ts'
import type {
  MigrateNodesBody,
  NodeMigration,
  NodeMigrationResult,
  WorkflowNodeMigrations,
} from '../domain/node-migration.ts'
import type { WorkflowContent } from '../domain/workflow.ts'
import { conflict, notFound } from '../errors.ts'
import { migrateDefinition, type PlannedMigration } from '../plugin/migrations.ts'
import type { Registry } from '../plugin/registry.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import { displayVersion, versions, type WorkflowRow, workflows } from '../store/workflows.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'
import type { WorkflowService } from './workflows.ts'

export interface NodeMigrationService {
  /** What migrating a workflow's nodes changes; without `dryRun`, writes it as the draft (409 when a migration fails). */
  migrate(caller: Principal, workflowId: string, body: MigrateNodesBody): Promise<NodeMigrationResult>
  /** Per workflow of the caller's organization (not archived), what a migration would change; only workflows with changes. */
  list(caller: Principal, filter: { type?: string }): Promise<WorkflowNodeMigrations[]>
}

export interface NodeMigrationDeps {
  store: Store
  registry: Registry
  workflows: Pick<WorkflowService, 'update'>
}

const PAGE = 200

const shown = (m: PlannedMigration): NodeMigration => ({ ...m })

async function contentOf(db: SqlExecutor, w: WorkflowRow): Promise<WorkflowContent> {
  const version = displayVersion(w)
  const content = await versions.content(db, w.id, version)
  if (!content) throw notFound(`version ${version} of workflow`)
  return JSON.parse(content) as WorkflowContent
}

export function createNodeMigrationService(deps: NodeMigrationDeps): NodeMigrationService {
  const { store, registry } = deps
  return guarded<NodeMigrationService>(
    'nodeMigrations',
    { migrate: ['workflow:update'], list: ['workflow:read'] },
    {
      async migrate(caller, workflowId, body) {
        const w = await workflows.byId(store, caller.organizationId, workflowId)
        if (!w) throw notFound('workflow')
        const { definition } = await contentOf(store, w)
        const planned = migrateDefinition(registry, definition, body.types)
        const dryRun = body.dryRun === true
        const result = { workflowId: w.id, dryRun, fromVersion: displayVersion(w), draftVersion: null }
        const failed = planned.migrations.filter((m) => m.error !== undefined)
        if (failed.length > 0)
          throw conflict(
            `node ${failed[0].nodeId} cannot be migrated: ${failed[0].error}`,
            failed.map((m) => ({ path: `/definition/nodes/${m.nodeId}`, message: m.error as string })),
          )
        const migrations = planned.migrations.map(shown)
        if (dryRun || migrations.length === 0) return { ...result, migrations }
        const written = await deps.workflows.update(caller, w.id, { definition: planned.definition })
        return { ...result, draftVersion: written.version, migrations }
      },

      async list(caller, filter) {
        const out: WorkflowNodeMigrations[] = []
        const types = filter.type ? [filter.type] : undefined
        for (let page: PageRequest = { limit: PAGE, offset: 0 }; ; page = { ...page, offset: page.offset + PAGE }) {
          const rows = await workflows.list(store, caller.organizationId, page, {})
          for (const w of rows.slice(0, PAGE)) {
            const { definition, name } = await contentOf(store, w)
            const { migrations } = migrateDefinition(registry, definition, types)
            if (migrations.length > 0)
              out.push({ workflowId: w.id, name, version: displayVersion(w), migrations: migrations.map(shown) })
          }
          if (rows.length <= PAGE) return out
        }
      },
    },
  )
}
