/** Node migrations: a workflow's nodes brought to the latest version of their types, and the organization-wide dry run. */
import { Elysia, t } from 'elysia'
import {
  MigrateNodesBody,
  NodeMigrationResult,
  NodeMigrationsQuery,
  WorkflowNodeMigrations,
} from '../../domain/node-migration.ts'
import type { NodeMigrationService } from '../../services/node-migrations.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams } from '../schemas.ts'

const tags = ['workflows']

/** `POST /v1/workflows/{id}/migrate-nodes` and `GET /v1/node-migrations`. */
export function nodeMigrationRoutes(auth: AuthPlugin, migrations: NodeMigrationService) {
  return new Elysia({ name: 'routes.node-migrations', prefix: '/v1' })
    .use(auth)
    .post(
      '/workflows/:id/migrate-nodes',
      ({ principal, params, body }) => migrations.migrate(principal, params.id, body ?? {}),
      {
        permission: 'workflow:update',
        params: IdParams,
        body: t.Optional(MigrateNodesBody),
        detail: doc({
          summary: "Migrate a workflow's nodes to the latest version of their types",
          description:
            "Reads the draft (else the live version); each node saved with an older version of its type is migrated by each newer version's migrate(payload) in turn. Lists per node the versions and the payload before and after; unless dryRun, writes the result as the draft (the live version keeps running until the draft is published). 409 names the node whose migration failed; nothing is written then.",
          tags,
          permission: 'workflow:update',
          response: NodeMigrationResult,
          errors: [404, 409],
        }),
      },
    )
    .get('/node-migrations', ({ principal, query }) => migrations.list(principal, query), {
      permission: 'workflow:read',
      query: NodeMigrationsQuery,
      detail: doc({
        summary: 'List what migrating nodes to the latest versions would change, per workflow',
        description:
          'A dry run over every workflow of the organization that is not archived (its draft, else its live version): only workflows with a node on an older version of its type are listed, optionally only nodes of one type. A node whose migration fails carries the error and a null after.',
        tags,
        permission: 'workflow:read',
        response: t.Array(WorkflowNodeMigrations),
      }),
    })
}
