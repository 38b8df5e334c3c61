/** Publishing templates and browsing them: create, list, read, versions, change, archive. */
import { Elysia } from 'elysia'
import { Page, pageRequest } from '../../domain/common.ts'
import {
  CreateTemplateBody,
  MODERATION_STATUSES,
  Template,
  TEMPLATE_SORTS,
  TEMPLATE_VISIBILITIES,
  UpdateTemplateBody,
} from '../../domain/template.ts'
import type { TemplateService } from '../../services/templates.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { boolParam, IdParams, PageQuery, t } from '../schemas.ts'
import { literals, VersionParams } from './template-schemas.ts'

const tags = ['templates']

/** `tags=a,b` or `tags=a&tags=b`: every slug given. */
function tagList(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined
  const list = (Array.isArray(value) ? value : [value])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean)
  return list.length > 0 ? list : undefined
}

const TemplateQuery = t.Composite([
  PageQuery,
  t.Object({
    visibility: t.Optional(literals(TEMPLATE_VISIBILITIES)),
    tags: t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Array(t.String({ maxLength: 100 }), { maxItems: 20 })])),
    search: t.Optional(t.String({ maxLength: 200 })),
    moderationStatus: t.Optional(literals(MODERATION_STATUSES)),
    promoted: t.Optional(boolParam('promoted')),
    organizationId: t.Optional(t.String({ maxLength: 64 })),
    archived: t.Optional(boolParam('archived')),
    sort: t.Optional(literals(TEMPLATE_SORTS)),
  }),
])

export function templatePublishingRoutes(auth: AuthPlugin, templates: TemplateService) {
  return new Elysia({ name: 'routes.templates.publishing' })
    .use(auth)
    .post('/v1/templates', ({ principal, body }) => templates.create(principal, body), {
      permission: 'template:write',
      body: CreateTemplateBody,
      detail: doc({
        summary: 'Publish a workflow (sourceWorkflowId) or a definition as a template',
        description:
          'visibility org (default, approved at once) or public (pending until the operator organization approves it). A definition that holds a secret is refused with the path of each.',
        tags,
        permission: 'template:write',
        response: Template,
        errors: [409],
      }),
    })
    .get(
      '/v1/templates',
      ({ principal, query }) =>
        templates.list(principal, pageRequest(query), {
          visibility: query.visibility,
          tags: tagList(query.tags),
          search: query.search?.trim() || undefined,
          moderationStatus: query.moderationStatus,
          promoted: query.promoted,
          organizationId: query.organizationId,
          archived: query.archived,
          sort: query.sort,
        }),
      {
        permission: 'workflow:read',
        query: TemplateQuery,
        detail: doc({
          summary: "Your organization's templates and approved public ones",
          description:
            'tags: all must match (comma-separated or repeated). sort: promoted (default), popular, recent, name. Without sort, a person with interests on sees templates carrying their interest tags first.',
          tags,
          permission: 'workflow:read',
          response: Page(Template),
        }),
      },
    )
    .get('/v1/templates/:id', ({ principal, params }) => templates.get(principal, params.id), {
      permission: 'workflow:read',
      params: IdParams,
      detail: doc({
        summary: "Read a template (others' public templates at their approved version)",
        tags,
        permission: 'workflow:read',
        response: Template,
        errors: [404],
      }),
    })
    .get(
      '/v1/templates/:id/versions',
      ({ principal, params, query }) => templates.versions(principal, params.id, pageRequest(query)),
      {
        permission: 'workflow:read',
        params: IdParams,
        query: PageQuery,
        detail: doc({
          summary: "A template's versions, newest first",
          tags,
          permission: 'workflow:read',
          response: Page(Template),
          errors: [404],
        }),
      },
    )
    .get(
      '/v1/templates/:id/versions/:n',
      ({ principal, params }) => templates.version(principal, params.id, params.n),
      {
        permission: 'workflow:read',
        params: VersionParams,
        detail: doc({
          summary: 'One version of a template',
          tags,
          permission: 'workflow:read',
          response: Template,
          errors: [404],
        }),
      },
    )
    .put('/v1/templates/:id', ({ principal, params, body }) => templates.update(principal, params.id, body), {
      permission: 'template:write',
      params: IdParams,
      body: UpdateTemplateBody,
      detail: doc({
        summary: 'Change a template: new content is a new version',
        description: "A public template's new version waits for moderation; others keep seeing the last approved one.",
        tags,
        permission: 'template:write',
        response: Template,
        errors: [404, 409],
      }),
    })
    .delete('/v1/templates/:id', ({ principal, params }) => templates.archive(principal, params.id, true), {
      permission: 'template:write',
      params: IdParams,
      detail: doc({
        summary: 'Archive a template (the record stays; it leaves listings)',
        tags,
        permission: 'template:write',
        response: Template,
        errors: [404],
      }),
    })
    .post('/v1/templates/:id/unarchive', ({ principal, params }) => templates.archive(principal, params.id, false), {
      permission: 'template:write',
      params: IdParams,
      detail: doc({
        summary: 'Bring an archived template back',
        tags,
        permission: 'template:write',
        response: Template,
        errors: [404],
      }),
    })
}
