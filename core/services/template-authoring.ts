/**
 * Writing templates: create (from a definition or a workflow of the organization), update
 * (content changes make a new version) and archive.
 *
 * A template never carries a secret: another organization's connector id, or a literal that
 * looks like a key or token, is refused with the path of each. A public template waits for
 * moderation on submission and on every new content or app reference; an org template is
 * approved as it is.
 */
import { checkTemplateProps } from '../domain/template-props.ts'
import {
  type CreateTemplateBody,
  slugify,
  type Template,
  type TemplateContent,
  type TemplateVisibility,
  type UpdateTemplateBody,
} from '../domain/template.ts'
import { AppError, badRequest, conflict, type ErrorDetail } from '../errors.ts'
import { secretLiterals } from '../security/secret-literals.ts'
import { connectors } from '../store/connectors.ts'
import { templates, type TemplateRow } from '../store/templates.ts'
import { actorOf, type Principal } from './auth.ts'
import { checkAppReference, updatedAppReference } from './template-apps.ts'
import type { TemplateContext } from './template-context.ts'

const searchTextOf = (content: TemplateContent, tagNames: readonly string[]) =>
  `${content.name} ${content.description} ${tagNames.join(' ')}`.toLowerCase()

/** The deprecated `category` is kept as given and stored as a tag too. */
const withCategory = (content: TemplateContent): TemplateContent => {
  if (!content.category) return content
  const slug = slugify(content.category)
  return content.tags.includes(slug) ? content : { ...content, tags: [...content.tags, slug] }
}

/** The content of a new template: the body, over what its source workflow has. */
async function contentToCreate(
  { deps }: TemplateContext,
  caller: Principal,
  body: CreateTemplateBody,
): Promise<TemplateContent> {
  let base: Partial<TemplateContent> = {}
  if (body.sourceWorkflowId) {
    const w = await deps.workflows.get(caller, body.sourceWorkflowId).catch((error) => {
      if (error instanceof AppError && error.status === 404)
        throw badRequest('no such workflow in this organization', [
          { path: '/sourceWorkflowId', message: 'unknown workflow' },
        ])
      throw error
    })
    base = {
      definition: w.definition,
      uiMetadata: w.uiMetadata,
      cooldownMs: w.cooldownMs,
      maxRuns: w.maxRuns,
      description: w.description,
    }
  } else if (!body.definition) {
    throw badRequest('a template needs a definition or a sourceWorkflowId', [
      { path: '/definition', message: 'required without sourceWorkflowId' },
    ])
  }
  return {
    name: body.name,
    description: body.description ?? base.description ?? '',
    tags: [...new Set(body.tags ?? [])],
    category: body.category ?? '',
    templateProps: body.templateProps ?? [],
    tableSchemas: body.tableSchemas ?? {},
    uiMetadata: body.uiMetadata ?? base.uiMetadata ?? { comments: [], nodePositions: {}, stickyNotes: [] },
    cooldownMs: body.cooldownMs ?? base.cooldownMs ?? 0,
    maxRuns: body.maxRuns ?? base.maxRuns ?? null,
    definition: body.definition ?? base.definition!,
  }
}

/** The content after an update: given fields replace the current version's. */
const contentToUpdate = (current: TemplateContent, body: UpdateTemplateBody): TemplateContent => ({
  name: body.name ?? current.name,
  description: body.description ?? current.description,
  tags: body.tags ? [...new Set(body.tags)] : current.tags,
  category: body.category ?? current.category ?? '',
  templateProps: body.templateProps ?? current.templateProps,
  tableSchemas: body.tableSchemas ?? current.tableSchemas,
  uiMetadata: body.uiMetadata ?? current.uiMetadata,
  cooldownMs: body.cooldownMs ?? current.cooldownMs,
  maxRuns: body.maxRuns !== undefined ? body.maxRuns : current.maxRuns,
  definition: body.definition ?? current.definition,
})

/** What moderation says after an update: a public template's change waits, an org template is approved as it is. */
function moderationAfterUpdate(
  row: TemplateRow,
  visibility: TemplateVisibility,
  changed: boolean,
  at: number,
): Partial<TemplateRow> {
  if (visibility === 'public' && (changed || row.visibility !== 'public'))
    return { moderation_status: 'pending', submitted_at: at, rejection_reason: null }
  if (visibility === 'org') {
    return {
      moderation_status: 'approved',
      public_version: null,
      approved_app_id: null,
      approved_app_version_id: null,
      is_promoted: 0,
      promoted_at: null,
      promoted_by: null,
      promoted_order: null,
    }
  }
  return {}
}

/** The authoring operations of the template service. */
export function authoringOperations(ctx: TemplateContext) {
  const { deps, tagIndex } = ctx
  const { store, clock } = deps

  /** Checks content as a workflow definition, and for secrets; the problems are 400 details. */
  async function checkContent(caller: Principal, content: TemplateContent, known: ReadonlySet<string>): Promise<void> {
    const problems: ErrorDetail[] = [
      ...(await deps.checkDefinition(content.definition)).map((e) => ({ ...e, path: `/definition${e.path ?? ''}` })),
      ...checkTemplateProps(content.templateProps),
      ...secretLiterals(content.definition.nodes, '/definition/nodes'),
    ]
    for (const [nodeId, node] of Object.entries(content.definition.nodes)) {
      const connectorId = node.connector?.id
      if (!connectorId) continue
      if ((await connectors.organizationOf(store, connectorId)) !== caller.organizationId) {
        problems.push({
          path: `/definition/nodes/${nodeId}/connector/id`,
          message: 'a connector of another organization; a template names connector types, and each fork picks its own',
        })
      }
    }
    content.tags.forEach((slug, i) => {
      if (!known.has(slug)) problems.push({ path: `/tags/${i}`, message: `unknown tag ${slug}` })
    })
    if (problems.length > 0) throw badRequest('the template is invalid', problems)
  }

  return {
    async create(caller: Principal, body: CreateTemplateBody): Promise<Template> {
      const given = await contentToCreate(ctx, caller, body)
      await checkContent(caller, given, await tagIndex.knownSlugs())
      const content = withCategory(given)
      const pin = await checkAppReference(store, caller.organizationId, {
        appId: body.generatedAppId,
        versionId: body.generatedAppVersionId,
      })
      const visibility = (body.visibility ?? 'org') as TemplateVisibility
      const id = deps.ids.next('tpl')
      const at = clock.now()
      const by = actorOf(caller)
      const names = await tagIndex.names(content.tags)
      await store.write(async (tx) => {
        let slug = body.slug ?? slugify(body.name)
        if (await templates.slugTaken(tx, caller.organizationId, slug)) {
          if (body.slug)
            throw conflict(`the slug ${slug} is taken in this organization`, [{ path: '/slug', message: 'taken' }])
          slug = `${slug.slice(0, 70)}-${id.slice(-6).toLowerCase()}`
        }
        await templates.insert(tx, {
          id,
          organization_id: caller.organizationId,
          slug,
          visibility,
          moderation_status: visibility === 'public' ? 'pending' : 'approved',
          rejection_reason: null,
          submitted_at: visibility === 'public' ? at : null,
          reviewed_at: null,
          reviewed_by: null,
          public_version: null,
          current_version: 1,
          is_promoted: 0,
          promoted_at: null,
          promoted_by: null,
          promoted_order: null,
          fork_count: 0,
          archived: 0,
          source_workflow_id: body.sourceWorkflowId ?? null,
          generated_app_id: pin.appId,
          generated_app_version_id: pin.versionId,
          approved_app_id: null,
          approved_app_version_id: null,
          created_at: at,
          created_by: by,
          updated_at: at,
          updated_by: by,
        })
        await templates.insertVersion(tx, store.dialect, {
          templateId: id,
          version: 1,
          content: JSON.stringify(content),
          searchText: searchTextOf(content, names),
          tags: content.tags,
          at,
          by,
        })
      })
      tagIndex.changed()
      return ctx.reread(caller, id)
    },

    async update(caller: Principal, id: string, body: UpdateTemplateBody): Promise<Template> {
      const row = await ctx.ownRow(caller, id)
      if (row.archived === 1) throw conflict('the template is archived; unarchive it first')
      const current = JSON.parse((await templates.version(store, id, row.current_version))!.content) as TemplateContent
      const given = contentToUpdate(current, body)
      // Tags a version already carries (its category's among them) stay allowed.
      await checkContent(caller, given, new Set([...(await tagIndex.knownSlugs()), ...current.tags]))
      const content = withCategory(given)
      const pin = await updatedAppReference(store, row, body)
      const visibility = (body.visibility ?? row.visibility) as TemplateVisibility
      const contentChanged = JSON.stringify(content) !== JSON.stringify(current)
      const at = clock.now()
      const by = actorOf(caller)
      const names = await tagIndex.names(content.tags)
      await store.write(async (tx) => {
        const patch: Partial<TemplateRow> = {
          updated_at: at,
          updated_by: by,
          visibility,
          generated_app_id: pin.appId,
          generated_app_version_id: pin.versionId,
        }
        if (body.slug && body.slug !== row.slug) {
          if (await templates.slugTaken(tx, caller.organizationId, body.slug, id))
            throw conflict(`the slug ${body.slug} is taken in this organization`, [{ path: '/slug', message: 'taken' }])
          patch.slug = body.slug
        }
        if (contentChanged) {
          patch.current_version = row.current_version + 1
          await templates.insertVersion(tx, store.dialect, {
            templateId: id,
            version: row.current_version + 1,
            content: JSON.stringify(content),
            searchText: searchTextOf(content, names),
            tags: content.tags,
            at,
            by,
          })
        }
        // A public template's new content, new app reference (or its move to public) waits for
        // moderation; the public keeps the approved version and app.
        Object.assign(patch, moderationAfterUpdate(row, visibility, contentChanged || pin.changed, at))
        await templates.update(tx, id, patch)
      })
      tagIndex.changed()
      return ctx.reread(caller, id)
    },

    async archive(caller: Principal, id: string, archived: boolean): Promise<Template> {
      await ctx.ownRow(caller, id)
      await store.write((tx) =>
        templates.update(tx, id, { archived: archived ? 1 : 0, updated_at: clock.now(), updated_by: actorOf(caller) }),
      )
      tagIndex.changed()
      return ctx.reread(caller, id)
    },
  }
}
