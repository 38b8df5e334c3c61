/** Forking a template into a draft workflow of the caller's organization. */
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { ForkBody } from '../../domain/template.ts'
import { Workflow } from '../../domain/workflow.ts'
import type { TemplateService } from '../../services/templates.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams } from '../schemas.ts'

const tags = ['templates']

export function templateForkRoutes(auth: AuthPlugin, templates: TemplateService) {
  return new Elysia({ name: 'routes.templates.forks' })
    .use(auth)
    .post('/v1/templates/:id/fork', ({ principal, params, body }) => templates.fork(principal, params.id, body), {
      permission: 'workflow:create',
      params: IdParams,
      body: ForkBody,
      detail: doc({
        summary: 'Fork a template into a draft workflow of your organization',
        description:
          'propValues are checked against templateProps (each problem a detail at /propValues/<key>); connectors maps node ids to your connectors. Sensitive props are sealed and answered masked.',
        tags,
        permission: 'workflow:create',
        errors: [404],
        response: T.Object({
          workflow: Workflow,
          appId: T.String({ description: '"" when the template has no app' }),
          propValues: T.Record(T.String(), T.Any()),
        }),
      }),
    })
}
