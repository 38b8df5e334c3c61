/** Apps: the text files a workflow's widget page serves, in versions, and their link to a workflow. */
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { AppBody, AppLinkBody, UpdateAppBody } from '../../domain/template.ts'
import type { AppService } from '../../services/apps.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams } from '../schemas.ts'
import { VersionParams } from './template-schemas.ts'

const App = T.Object({
  id: T.String(),
  organizationId: T.String(),
  name: T.String(),
  version: T.Integer(),
  versionId: T.String(),
  latestVersion: T.Integer(),
  files: T.Record(T.String(), T.String()),
  size: T.Integer(),
  createdAt: T.String(),
  createdBy: T.String(),
  updatedAt: T.String(),
  updatedBy: T.String(),
})

export function appRoutes(auth: AuthPlugin, apps: AppService) {
  return new Elysia({ name: 'routes.apps' })
    .use(auth)
    .post('/v1/apps', ({ principal, body }) => apps.create(principal, body), {
      permission: 'workflow:update',
      body: AppBody,
      detail: doc({
        summary: "Create an app: text files (at most 2 MiB) a workflow's widget page serves",
        tags: ['apps'],
        permission: 'workflow:update',
        response: App,
      }),
    })
    .put('/v1/apps/:id', ({ principal, params, body }) => apps.update(principal, params.id, body), {
      permission: 'workflow:update',
      params: IdParams,
      body: UpdateAppBody,
      detail: doc({
        summary: 'Change an app: a new version',
        tags: ['apps'],
        permission: 'workflow:update',
        response: App,
        errors: [404],
      }),
    })
    .get('/v1/apps/:id', ({ principal, params }) => apps.get(principal, params.id), {
      permission: 'workflow:read',
      params: IdParams,
      detail: doc({
        summary: 'Read an app at its latest version',
        tags: ['apps'],
        permission: 'workflow:read',
        response: App,
        errors: [404],
      }),
    })
    .get('/v1/apps/:id/versions/:n', ({ principal, params }) => apps.version(principal, params.id, params.n), {
      permission: 'workflow:read',
      params: VersionParams,
      detail: doc({
        summary: 'Read one version of an app',
        tags: ['apps'],
        permission: 'workflow:read',
        response: App,
        errors: [404],
      }),
    })
    .put(
      '/v1/workflows/:id/app',
      ({ principal, params, body }) => apps.link(principal, params.id, body.appId, body.version),
      {
        permission: 'workflow:update',
        params: IdParams,
        body: AppLinkBody,
        detail: doc({
          summary: "Attach an app to the workflow's widget page (null detaches)",
          tags: ['apps'],
          permission: 'workflow:update',
          errors: [404],
          response: T.Object({
            workflowId: T.String(),
            appId: T.String({ description: '"" when no app is attached' }),
            version: T.Union([T.Integer(), T.Null()]),
          }),
        }),
      },
    )
}
