/** Moderating public templates (operator organization): approve, reject, the log, promotion. */
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { Template } from '../../domain/template.ts'
import type { TemplateService } from '../../services/templates.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams, t } from '../schemas.ts'

const tags = ['templates']
const Moderation = T.Object({
  items: T.Array(
    T.Object({
      id: T.String(),
      version: T.Integer(),
      decision: T.String(),
      reason: T.String(),
      decidedBy: T.String(),
      decidedAt: T.String(),
    }),
  ),
})

export function templateModerationRoutes(auth: AuthPlugin, templates: TemplateService) {
  return new Elysia({ name: 'routes.templates.moderation' })
    .use(auth)
    .post('/v1/templates/:id/approve', ({ principal, params }) => templates.approve(principal, params.id), {
      permission: 'template:moderate',
      params: IdParams,
      detail: doc({
        summary: 'Approve a pending public template (operator organization)',
        tags,
        permission: 'template:moderate',
        response: Template,
        errors: [404, 409],
      }),
    })
    .post(
      '/v1/templates/:id/reject',
      ({ principal, params, body }) => templates.reject(principal, params.id, body.rejectionReason),
      {
        permission: 'template:moderate',
        params: IdParams,
        body: t.Object({ rejectionReason: t.String({ minLength: 1, maxLength: 1000 }) }),
        detail: doc({
          summary: 'Reject a pending public template with a reason (operator organization)',
          tags,
          permission: 'template:moderate',
          response: Template,
          errors: [404, 409],
        }),
      },
    )
    .get('/v1/templates/:id/moderation', ({ principal, params }) => templates.moderationLog(principal, params.id), {
      permission: 'workflow:read',
      params: IdParams,
      detail: doc({
        summary: 'Every moderation decision on a template',
        tags,
        permission: 'workflow:read',
        response: Moderation,
        errors: [404],
      }),
    })
    .post(
      '/v1/templates/:id/promote',
      ({ principal, params, body }) => templates.promote(principal, params.id, body.order),
      {
        permission: 'template:moderate',
        params: IdParams,
        body: t.Object({ order: t.Integer({ minimum: 0, maximum: 1_000_000 }) }),
        detail: doc({
          summary: 'Promote an approved public template (lower order first)',
          tags,
          permission: 'template:moderate',
          response: Template,
          errors: [404, 409],
        }),
      },
    )
    .delete('/v1/templates/:id/promote', ({ principal, params }) => templates.promote(principal, params.id, null), {
      permission: 'template:moderate',
      params: IdParams,
      detail: doc({
        summary: 'Stop promoting a template',
        tags,
        permission: 'template:moderate',
        response: Template,
        errors: [404],
      }),
    })
}
