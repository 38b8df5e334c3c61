/**
 * Templates, tags, apps, and the public widget page of a workflow (API.md, "Templates", "Tags").
 */
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { MAX_INT32, Page, pageRequest } from '../../domain/common.ts'
import {
  AppBody,
  AppLinkBody,
  CreateTemplateBody,
  ForkBody,
  MODERATION_STATUSES,
  Tag,
  TAG_SCOPES,
  TagBody,
  Template,
  TEMPLATE_SORTS,
  TEMPLATE_VISIBILITIES,
  UpdateAppBody,
  UpdateTagBody,
  UpdateTemplateBody,
} from '../../domain/template.ts'
import { Workflow } from '../../domain/workflow.ts'
import type { AppService } from '../../services/apps.ts'
import type { TemplateService } from '../../services/templates.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { boolParam, IdParams, intParam, PageQuery, t } from '../schemas.ts'

const tags = ['templates']
const literals = (values: readonly string[]) => t.Union(values.map((v) => t.Literal(v)))

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

const TagQuery = t.Object({
  category: t.Optional(t.String({ maxLength: 100 })),
  search: t.Optional(t.String({ maxLength: 200 })),
  limit: t.Optional(intParam('limit', { minimum: 1, maximum: 10_000, default: 20 })),
  offset: t.Optional(intParam('offset', { minimum: 0, default: 0 })),
  sortByCount: t.Optional(boolParam('sortByCount')),
  scope: t.Optional(literals(TAG_SCOPES)),
  pagination_bypass_key: t.Optional(t.String({ maxLength: 500 })),
})

const Version = t.Object({
  id: t.String({ minLength: 1, maxLength: 64 }),
  n: intParam('n', { minimum: 1, maximum: MAX_INT32 }, 'params'),
})
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

export function templateRoutes(auth: AuthPlugin, templates: TemplateService, apps: AppService) {
  return new Elysia({ name: 'routes.templates' })
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
        params: Version,
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
          appId: T.Union([T.String(), T.Null()]),
          propValues: T.Record(T.String(), T.Any()),
        }),
      }),
    })
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
      params: Version,
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
            appId: T.Union([T.String(), T.Null()]),
            version: T.Union([T.Integer(), T.Null()]),
          }),
        }),
      },
    )
}

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  svg: 'image/svg+xml',
  txt: 'text/plain; charset=utf-8',
  md: 'text/plain; charset=utf-8',
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The built-in widget page: title, description, an amount within bounds, and a button that starts a public run. */
function builtInWidget(workflowId: string, name: string, config: Record<string, unknown>): string {
  const title = escapeHtml(String(config.title ?? name))
  const description = escapeHtml(String(config.description ?? ''))
  const button = escapeHtml(String(config.buttonLabel ?? 'Run'))
  const min = typeof config.minAmount === 'string' ? config.minAmount : null
  const max = typeof config.maxAmount === 'string' ? config.maxAmount : null
  const amount =
    min !== null || max !== null
      ? `<label>Amount <input id="amount" type="number" inputmode="numeric" step="1"${min !== null ? ` min="${escapeHtml(min)}"` : ''}${max !== null ? ` max="${escapeHtml(max)}"` : ''} required></label>`
      : ''
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1b1b1f}label{display:block;margin:1rem 0}input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}button{font:inherit;padding:.6rem 1.2rem}#out{margin-top:1rem;white-space:pre-wrap}</style></head>
<body><h1>${title}</h1><p>${description}</p><form id="f">${amount}<button type="submit">${button}</button></form><p id="out" role="status"></p>
<script>
const f = document.getElementById('f'), out = document.getElementById('out'), amount = document.getElementById('amount')
f.addEventListener('submit', async (e) => {
  e.preventDefault()
  if (amount && !amount.checkValidity()) { out.textContent = amount.validationMessage; return }
  out.textContent = 'Starting…'
  const r = await fetch(${JSON.stringify(`/v1/public/workflows/${workflowId}/run`)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ payload: amount ? { amount: amount.value } : {} }) })
  const body = await r.json().catch(() => ({}))
  out.textContent = r.ok ? 'Started run ' + body.data.runId : (body.message || 'Failed: ' + r.status)
})
</script></body></html>`
}

/** `/w/{workflowId}/…`: the widget page of a workflow with publicWidgetConfig.enabled, without a key. */
export function widgetRoutes(apps: AppService) {
  const serve = async (workflowId: string, path: string) => {
    const widget = await apps.widget(workflowId)
    const notFoundPage = new Response('not found', {
      status: 404,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    })
    if (!widget) return notFoundPage
    if (!widget.files) {
      if (path !== '' && path !== 'index.html') return notFoundPage
      return new Response(builtInWidget(workflowId, widget.name, widget.config), {
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
          'content-security-policy':
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
        },
      })
    }
    const file = path === '' ? 'index.html' : path
    const text = Object.hasOwn(widget.files, file) ? widget.files[file] : undefined
    if (text === undefined) return notFoundPage
    const ext = file.slice(file.lastIndexOf('.') + 1).toLowerCase()
    return new Response(text, {
      headers: {
        'content-type': CONTENT_TYPES[ext] ?? 'text/plain; charset=utf-8',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        // An organization's app runs in a sandbox: an origin of its own, so it can never act
        // with a signed-in person's cookie on this server. It may call the public run endpoint.
        'content-security-policy': 'sandbox allow-scripts allow-forms allow-popups; frame-ancestors *',
      },
    })
  }
  return new Elysia({ name: 'routes.widgets' }).get(
    '/w/*',
    ({ params, request }) => {
      const rest = params['*'] ?? ''
      const slash = rest.indexOf('/')
      const workflowId = decodeURIComponent(slash < 0 ? rest : rest.slice(0, slash))
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(workflowId))
        return new Response('not found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } })
      // The page's relative links need the trailing slash.
      if (slash < 0)
        return new Response(null, { status: 302, headers: { location: `${new URL(request.url).pathname}/` } })
      return serve(workflowId, rest.slice(slash + 1))
    },
    {
      params: t.Object({ '*': t.String({ maxLength: 400 }) }),
      detail: doc({
        summary:
          "The public widget page of a workflow with publicWidgetConfig.enabled (/w/{workflowId}/), and its app's files",
        description:
          "No key. The app attached to the workflow (PUT /v1/workflows/{id}/app), or a built-in page with the widget's title, description, amount and button, which starts a public run.",
        tags: ['apps'],
        produces: 'text/html',
        errors: [404],
      }),
    },
  )
}
