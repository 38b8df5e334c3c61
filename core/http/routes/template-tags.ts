/** Tags: listed by everyone, managed by the operator organization. */
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { Page } from '../../domain/common.ts'
import { Tag, TAG_SCOPES, TagBody, UpdateTagBody } from '../../domain/template.ts'
import type { TemplateService } from '../../services/templates.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { boolParam, IdParams, intParam, t } from '../schemas.ts'
import { literals } from './template-schemas.ts'

const TagQuery = t.Object({
  category: t.Optional(t.String({ maxLength: 100 })),
  search: t.Optional(t.String({ maxLength: 200 })),
  limit: t.Optional(intParam('limit', { minimum: 1, maximum: 10_000, default: 20 })),
  offset: t.Optional(intParam('offset', { minimum: 0, default: 0 })),
  sortByCount: t.Optional(boolParam('sortByCount')),
  scope: t.Optional(literals(TAG_SCOPES)),
  pagination_bypass_key: t.Optional(t.String({ maxLength: 500 })),
})

export function templateTagRoutes(auth: AuthPlugin, templates: TemplateService) {
  return new Elysia({ name: 'routes.tags' })
    .use(auth)
    .get(
      '/v1/tags',
      ({ principal, query }) =>
        templates.listTags(principal, {
          category: query.category,
          search: query.search?.trim() || undefined,
          limit: query.limit ?? 20,
          offset: query.offset ?? 0,
          sortByCount: query.sortByCount,
          scope: query.scope,
          paginationBypassKey: query.pagination_bypass_key,
        }),
      {
        permission: 'workflow:read',
        query: TagQuery,
        detail: doc({
          summary: 'List tags',
          description:
            'count follows scope: all (default), templates_public, templates_promoted, templates_org, actions, triggers, connectors. Ordered by weight (or by count with sortByCount). limit above 1000 needs pagination_bypass_key.',
          tags: ['tags'],
          permission: 'workflow:read',
          response: Page(Tag),
        }),
      },
    )
    .post('/v1/tags', ({ principal, body }) => templates.createTag(principal, body), {
      permission: 'template:moderate',
      body: TagBody,
      detail: doc({
        summary: 'Create a tag (operator organization)',
        tags: ['tags'],
        permission: 'template:moderate',
        response: Tag,
        errors: [409],
      }),
    })
    .put('/v1/tags/:id', ({ principal, params, body }) => templates.updateTag(principal, params.id, body), {
      permission: 'template:moderate',
      params: IdParams,
      body: UpdateTagBody,
      detail: doc({
        summary: 'Change a tag (operator organization)',
        tags: ['tags'],
        permission: 'template:moderate',
        response: Tag,
        errors: [404, 409],
      }),
    })
    .delete('/v1/tags/:id', ({ principal, params }) => templates.deleteTag(principal, params.id), {
      permission: 'template:moderate',
      params: IdParams,
      detail: doc({
        summary: 'Delete a tag record (a slug still in use is listed by its slug)',
        tags: ['tags'],
        permission: 'template:moderate',
        errors: [404],
        response: T.Object({ id: T.String(), deleted: T.Literal(true) }),
      }),
    })
}
