/**
 * Templates: a team publishes a workflow as a template; other organizations find it by tag or
 * search, fill in its props and fork it into a draft workflow of their own.
 *
 * - Org templates are always `approved`. A public template is `pending` on submission and on
 *   every new version; the operator organization approves or rejects it (a moderation log keeps
 *   every decision). Others see the last approved version (`public_version`) meanwhile.
 * - A template never carries a secret: another organization's connector id, or a literal that
 *   looks like a key or token, is refused with the path of each.
 * - Forks check prop values against `templateProps`, seal the sensitive ones in the new workflow
 *   (runs read them as `{{$props.key}}`; everything answered masks them by value), and copy the
 *   attached app into the adopting organization.
 */
import type { Catalog } from '../plugin/catalog.ts'
import type { PageRequest } from '../domain/common.ts'
import { checkPropValues, checkTemplateProps } from '../domain/template-props.ts'
import {
  type CreateTemplateBody, type ForkBody, slugify, type Tag, type TagScope, type Template, type TemplateContent, type TemplateSort,
  type TemplateVisibility, type UpdateTemplateBody,
} from '../domain/template.ts'
import type { Definition } from '../domain/workflow.ts'
import { AppError, badRequest, conflict, type ErrorDetail, notFound } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import { secretLiterals } from '../security/secret-literals.ts'
import { ensureTrigramIndex } from '../store/trigram.ts'
import type { Logger } from '../ports/logger.ts'
import { timingSafeEqual } from '../security/hash.ts'
import { apps, type ShownTemplateRow, type TagRow, tags, templates, type TemplateFilter, type TemplateRow } from '../store/templates.ts'
import { users } from '../store/users.ts'
import { workflows } from '../store/workflows.ts'
import { iso } from '../time.ts'
import { BoundedMap } from '../bounded-map.ts'
import { actorOf, type Principal, requirePermission } from './auth.ts'
import type { WorkflowService } from './workflows.ts'

const isoOr = (at: number | null) => (at === null ? '' : iso(at))

export interface TemplateListQuery extends Omit<TemplateFilter, 'preferTags'> {
  sort?: TemplateSort
}

export interface TagListQuery {
  category?: string
  search?: string
  limit: number
  offset: number
  sortByCount?: boolean
  scope?: TagScope
  paginationBypassKey?: string
}

export function createTemplateService(deps: {
  store: Store
  clock: Clock
  ids: Ids
  secretBox: SecretBox
  workflows: WorkflowService
  catalog: Catalog
  /** Definition checks of a workflow save; a template is checked the same way. */
  checkDefinition: (definition: Definition) => Promise<ErrorDetail[]>
  /** AUTOMATON_PAGINATION_BYPASS_KEY; null: no bypass. */
  paginationBypassKey: string | null
  /** A fork sealed sensitive prop values in the organization: its secret masks must be read again. */
  onSealed?: (organizationId: string) => void
}) {
  const { store, clock } = deps

  // --- tags -----------------------------------------------------------------------------------

  /** Catalog tag counts per slug, by kind: fixed for the life of the process. */
  const catalogCounts = new Map<string, { actions: number; triggers: number; connectors: number }>()
  const countOf = (slug: string) => {
    let c = catalogCounts.get(slug)
    if (!c) catalogCounts.set(slug, (c = { actions: 0, triggers: 0, connectors: 0 }))
    return c
  }
  for (const e of deps.catalog.actions) for (const tag of e.tags) countOf(tag).actions++
  for (const e of deps.catalog.triggers) for (const tag of e.tags) countOf(tag).triggers++
  for (const e of deps.catalog.connectorTypes) for (const tag of e.tags) countOf(tag).connectors++

  /** Template counts per tag for an organization, kept a moment (listings ask on every call). */
  const countCache = new BoundedMap<string, { at: number; counts: Map<string, { public: number; promoted: number; org: number }> }>(1000)
  let writes = 0
  /**
   * The last count, refreshed in the background once two seconds old, so that no answer waits for
   * a count of every template. `fresh` (tag listings): counted again at once after a template or
   * tag write of this process, so that a writer reads its own change.
   */
  async function templateCounts(organizationId: string, fresh = true) {
    const cached = countCache.get(organizationId)
    if (cached && (cached.at === writes || !fresh)) {
      // Answered from what was counted last; counted again meanwhile, off the request's path.
      if (clock.now() - (cached as { readAt?: number }).readAt! >= 2000) void recount(organizationId).catch(() => {})
      return cached.counts
    }
    return recount(organizationId)
  }

  function recount(organizationId: string) {
    // One count at a time per organization: concurrent answers share it.
    const key = `${organizationId}@${writes}`
    let pending = counting.get(key)
    if (!pending) {
      const at = writes
      pending = tags.counts(store, organizationId).then((rows) => {
        const counts = new Map<string, { public: number; promoted: number; org: number }>()
        for (const r of rows) counts.set(r.slug, { public: Number(r.public_count), promoted: Number(r.promoted_count), org: Number(r.org_count) })
        countCache.set(organizationId, Object.assign({ at, counts }, { readAt: clock.now() }))
        return counts
      }).finally(() => counting.delete(key))
      counting.set(key, pending)
    }
    return pending
  }
  const counting = new Map<string, Promise<Map<string, { public: number; promoted: number; org: number }>>>()
  const changed = () => {
    writes++
  }

  /** Tag rows, read again after a tag write here and at most two seconds old otherwise. */
  let tagRows: { at: number; readAt: number; bySlug: Map<string, TagRow> } | null = null
  async function tagsBySlug(): Promise<Map<string, TagRow>> {
    if (tagRows && tagRows.at === writes && clock.now() - tagRows.readAt < 2000) return tagRows.bySlug
    const at = writes
    const bySlug = new Map<string, TagRow>((await tags.all(store)).map((r) => [r.slug, r]))
    tagRows = { at, readAt: clock.now(), bySlug }
    return bySlug
  }

  /** Tag records of every slug known (or of `only`), counted for `scope`. */
  async function tagRecords(organizationId: string, scope: TagScope, fresh = true, only?: ReadonlySet<string>): Promise<Tag[]> {
    const bySlug = await tagsBySlug()
    const counts = await templateCounts(organizationId, fresh)
    const slugs = only ?? new Set<string>([...bySlug.keys(), ...catalogCounts.keys(), ...counts.keys()])
    const out: Tag[] = []
    for (const slug of slugs) {
      const r = bySlug.get(slug)
      const t = counts.get(slug) ?? { public: 0, promoted: 0, org: 0 }
      const c = catalogCounts.get(slug) ?? { actions: 0, triggers: 0, connectors: 0 }
      const byScope: Record<TagScope, number> = {
        templates_public: t.public, templates_promoted: t.promoted, templates_org: t.org,
        actions: c.actions, triggers: c.triggers, connectors: c.connectors,
        all: t.public + t.org + c.actions + c.triggers + c.connectors,
      }
      out.push({
        id: r?.id ?? '', slug, name: r?.name ?? slug, description: r?.description ?? '', imageUrl: r?.image_url ?? '',
        categories: r ? (JSON.parse(r.categories) as string[]) : [], count: byScope[scope], weight: r?.weight ?? 0,
        promotedTemplateCount: t.promoted, publicTemplateCount: t.public,
        createdAt: r ? iso(r.created_at) : '', updatedAt: r ? iso(r.updated_at) : '',
      })
    }
    return out
  }

  async function knownTagSlugs(): Promise<Set<string>> {
    return new Set([...(await tags.slugs(store)), ...catalogCounts.keys()])
  }

  /** The interest tags of a person whose switch is on; null when off (or not a person). */
  async function interestsOf(caller: Principal): Promise<string[] | null> {
    if (!caller.userId) return null
    const user = await users.byId(store, caller.userId)
    if (!user || user.interests_enabled !== 1) return null
    return JSON.parse(user.interest_tags) as string[]
  }

  // --- templates ------------------------------------------------------------------------------

  /** A caller who moderates templates reviews them: the latest version of every public one, and its real status. */
  const reviews = (caller: Principal) => caller.permissions.has('template:moderate')

  async function toTemplates(caller: Principal, rows: readonly ShownTemplateRow[], reviewer = false): Promise<Template[]> {
    const slugsOf = await templates.tagsOf(store, rows.map((r) => ({ id: r.id, version: r.shown_version })))
    const used = new Set([...slugsOf.values()].flat())
    const bySlug = new Map((used.size > 0 ? await tagRecords(caller.organizationId, 'all', false, used) : []).map((t) => [t.slug, t]))
    return rows.map((r) => {
      const content = JSON.parse(r.content) as TemplateContent
      const own = r.organization_id === caller.organizationId || reviewer
      return {
        id: r.id, name: content.name, slug: r.slug, description: content.description, archived: r.archived === 1,
        category: content.category ?? '', cooldownMs: content.cooldownMs, maxRuns: content.maxRuns,
        createdAt: iso(r.created_at), createdBy: r.created_by, updatedAt: iso(r.updated_at), updatedBy: r.updated_by,
        definition: content.definition, forkCount: r.fork_count,
        generatedAppId: r.generated_app_id ?? '', generatedAppVersionId: r.generated_app_version_id ?? '',
        isPromoted: r.is_promoted === 1, promotedAt: isoOr(r.promoted_at), promotedBy: r.promoted_by ?? '', promotedOrder: r.promoted_order,
        // Others see the approved version, and nothing of what moderation says about a newer one.
        moderationStatus: own ? r.moderation_status : 'approved',
        rejectionReason: own ? (r.rejection_reason ?? '') : '',
        reviewedAt: isoOr(r.reviewed_at), reviewedBy: r.reviewed_by ?? '', submittedAt: isoOr(r.submitted_at),
        organizationId: r.organization_id, organizationName: r.organization_name, organizationDescription: '', organizationPhoto: '',
        sourceWorkflowId: r.source_workflow_id ?? '', tableSchemas: content.tableSchemas, templateProps: content.templateProps,
        tags: (slugsOf.get(`${r.id}@${r.shown_version}`) ?? []).map((slug) => bySlug.get(slug)!).filter(Boolean),
        uiMetadata: content.uiMetadata, version: r.shown_version, visibility: r.visibility,
      }
    })
  }

  async function shown(caller: Principal, id: string): Promise<ShownTemplateRow> {
    const row = await templates.shown(store, caller.organizationId, id)
    if (!row) throw notFound('template')
    return row
  }

  async function ownRow(caller: Principal, id: string, db: SqlExecutor = store): Promise<TemplateRow> {
    const row = await templates.byId(db, id)
    if (!row || row.organization_id !== caller.organizationId) throw notFound('template')
    return row
  }

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
      const owner = await store.get<{ organization_id: string }>('SELECT organization_id FROM connectors WHERE id = $1', [connectorId])
      if (!owner || owner.organization_id !== caller.organizationId) {
        problems.push({ path: `/definition/nodes/${nodeId}/connector/id`, message: 'a connector of another organization; a template names connector types, and each fork picks its own' })
      }
    }
    content.tags.forEach((slug, i) => {
      if (!known.has(slug)) problems.push({ path: `/tags/${i}`, message: `unknown tag ${slug}` })
    })
    if (problems.length > 0) throw badRequest('the template is invalid', problems)
  }

  const searchTextOf = (content: TemplateContent, tagNames: readonly string[]) =>
    `${content.name} ${content.description} ${tagNames.join(' ')}`.toLowerCase()

  async function tagNames(slugs: readonly string[]): Promise<string[]> {
    const rows = await tagsBySlug()
    return slugs.map((s) => rows.get(s)?.name ?? s)
  }

  /** The deprecated `category` is kept as given and stored as a tag too. */
  const withCategory = (content: TemplateContent): TemplateContent => {
    if (!content.category) return content
    const slug = slugify(content.category)
    return content.tags.includes(slug) ? content : { ...content, tags: [...content.tags, slug] }
  }

  async function appPin(caller: Principal, appId: string | null | undefined, versionId: string | null | undefined) {
    if (!appId) {
      if (versionId) throw badRequest('generatedAppVersionId needs generatedAppId', [{ path: '/generatedAppVersionId', message: 'needs generatedAppId' }])
      return { appId: null, versionId: null }
    }
    if (!(await apps.byId(store, caller.organizationId, appId))) throw badRequest('no such app in this organization', [{ path: '/generatedAppId', message: 'unknown app' }])
    if (versionId) {
      const v = await apps.versionById(store, versionId)
      if (!v || v.app_id !== appId) throw badRequest('not a version of that app', [{ path: '/generatedAppVersionId', message: 'unknown app version' }])
    }
    return { appId, versionId: versionId ?? null }
  }

  function requireModerator(caller: Principal) {
    requirePermission(caller, 'template:moderate')
  }

  async function moderationTarget(caller: Principal, id: string, db: SqlExecutor): Promise<TemplateRow> {
    requireModerator(caller)
    const row = await templates.byId(db, id)
    if (!row) throw notFound('template')
    return row
  }

  return {
    knownTagSlugs,

    /** On Postgres, a trigram index for template search (SQLite has its FTS5 table). */
    ensureSearchIndex: (logger: Logger) =>
      ensureTrigramIndex(store, logger, { name: 'template_versions_search_trgm', table: 'template_versions', column: 'search_text', what: 'templates' }),

    async create(caller: Principal, body: CreateTemplateBody): Promise<Template> {
      let base: Partial<TemplateContent> = {}
      if (body.sourceWorkflowId) {
        const w = await deps.workflows.get(caller, body.sourceWorkflowId).catch((error) => {
          if (error instanceof AppError && error.status === 404) throw badRequest('no such workflow in this organization', [{ path: '/sourceWorkflowId', message: 'unknown workflow' }])
          throw error
        })
        base = { definition: w.definition, uiMetadata: w.uiMetadata, cooldownMs: w.cooldownMs, maxRuns: w.maxRuns, description: w.description }
      } else if (!body.definition) {
        throw badRequest('a template needs a definition or a sourceWorkflowId', [{ path: '/definition', message: 'required without sourceWorkflowId' }])
      }
      const given: TemplateContent = {
        name: body.name, description: body.description ?? base.description ?? '', tags: [...new Set(body.tags ?? [])], category: body.category ?? '',
        templateProps: body.templateProps ?? [], tableSchemas: body.tableSchemas ?? {},
        uiMetadata: body.uiMetadata ?? base.uiMetadata ?? { comments: [], nodePositions: {}, stickyNotes: [] },
        cooldownMs: body.cooldownMs ?? base.cooldownMs ?? 0, maxRuns: body.maxRuns ?? base.maxRuns ?? null,
        definition: body.definition ?? base.definition!,
      }
      await checkContent(caller, given, await knownTagSlugs())
      const content = withCategory(given)
      const pin = await appPin(caller, body.generatedAppId, body.generatedAppVersionId)
      const visibility = (body.visibility ?? 'org') as TemplateVisibility
      const id = deps.ids.next('tpl')
      const at = clock.now()
      const by = actorOf(caller)
      const names = await tagNames(content.tags)
      await store.write(async (tx) => {
        let slug = body.slug ?? slugify(body.name)
        if (await templates.slugTaken(tx, caller.organizationId, slug)) {
          if (body.slug) throw conflict(`the slug ${slug} is taken in this organization`, [{ path: '/slug', message: 'taken' }])
          slug = `${slug.slice(0, 70)}-${id.slice(-6).toLowerCase()}`
        }
        await templates.insert(tx, {
          id, organization_id: caller.organizationId, slug, visibility,
          moderation_status: visibility === 'public' ? 'pending' : 'approved', rejection_reason: null,
          submitted_at: visibility === 'public' ? at : null, reviewed_at: null, reviewed_by: null,
          public_version: null, current_version: 1, is_promoted: 0, promoted_at: null, promoted_by: null, promoted_order: null,
          fork_count: 0, archived: 0, source_workflow_id: body.sourceWorkflowId ?? null,
          generated_app_id: pin.appId, generated_app_version_id: pin.versionId,
          created_at: at, created_by: by, updated_at: at, updated_by: by,
        })
        await templates.insertVersion(tx, store.dialect, { templateId: id, version: 1, content: JSON.stringify(content), searchText: searchTextOf(content, names), tags: content.tags, at, by })
      })
      changed()
      return (await toTemplates(caller, [await shown(caller, id)]))[0]
    },

    async get(caller: Principal, id: string): Promise<Template> {
      // A reviewer reads what waits for review; everyone else, what they may fork.
      if (reviews(caller)) {
        const row = await templates.shown(store, caller.organizationId, id, true)
        if (!row) throw notFound('template')
        return (await toTemplates(caller, [row], true))[0]
      }
      return (await toTemplates(caller, [await shown(caller, id)]))[0]
    },

    async list(caller: Principal, page: PageRequest, query: TemplateListQuery) {
      // Personalised only without an explicit sort, and only when the person turned it on.
      const preferTags = query.sort === undefined ? ((await interestsOf(caller)) ?? undefined) : undefined
      // Asking by moderation status, a reviewer gets the queue: every organization's submissions.
      const reviewer = query.moderationStatus !== undefined && reviews(caller)
      const rows = await templates.list(store, store.dialect, caller.organizationId, { ...query, preferTags, reviewer }, page.limit + 1, page.offset)
      return { hasMore: rows.length > page.limit, items: await toTemplates(caller, rows.slice(0, page.limit), reviewer), limit: page.limit, offset: page.offset }
    },

    async versions(caller: Principal, id: string, page: PageRequest) {
      const row = await shown(caller, id)
      const versions = await templates.versions(store, id, row.shown_version, page.limit + 1, page.offset)
      const items = await toTemplates(caller, versions.slice(0, page.limit).map((v) => ({ ...row, shown_version: v.version, content: v.content })))
      return { hasMore: versions.length > page.limit, items, limit: page.limit, offset: page.offset }
    },

    async version(caller: Principal, id: string, version: number): Promise<Template> {
      const row = await shown(caller, id)
      const v = version <= row.shown_version ? await templates.version(store, id, version) : undefined
      if (!v) throw notFound(`version ${version} of template`)
      return (await toTemplates(caller, [{ ...row, shown_version: v.version, content: v.content }]))[0]
    },

    async update(caller: Principal, id: string, body: UpdateTemplateBody): Promise<Template> {
      const row = await ownRow(caller, id)
      if (row.archived === 1) throw conflict('the template is archived; unarchive it first')
      const current = JSON.parse((await templates.version(store, id, row.current_version))!.content) as TemplateContent
      const given: TemplateContent = {
        name: body.name ?? current.name, description: body.description ?? current.description,
        tags: body.tags ? [...new Set(body.tags)] : current.tags, category: body.category ?? current.category ?? '',
        templateProps: body.templateProps ?? current.templateProps, tableSchemas: body.tableSchemas ?? current.tableSchemas,
        uiMetadata: body.uiMetadata ?? current.uiMetadata, cooldownMs: body.cooldownMs ?? current.cooldownMs,
        maxRuns: body.maxRuns !== undefined ? body.maxRuns : current.maxRuns, definition: body.definition ?? current.definition,
      }
      // Tags a version already carries (its category's among them) stay allowed.
      await checkContent(caller, given, new Set([...(await knownTagSlugs()), ...current.tags]))
      const content = withCategory(given)
      const pin = body.generatedAppId !== undefined
        ? await appPin(caller, body.generatedAppId, body.generatedAppVersionId)
        : { appId: row.generated_app_id, versionId: body.generatedAppVersionId !== undefined ? body.generatedAppVersionId : row.generated_app_version_id }
      const visibility = (body.visibility ?? row.visibility) as TemplateVisibility
      const contentChanged = JSON.stringify(content) !== JSON.stringify(current)
      const at = clock.now()
      const by = actorOf(caller)
      const names = await tagNames(content.tags)
      await store.write(async (tx) => {
        const patch: Partial<TemplateRow> = { updated_at: at, updated_by: by, visibility, generated_app_id: pin.appId, generated_app_version_id: pin.versionId }
        if (body.slug && body.slug !== row.slug) {
          if (await templates.slugTaken(tx, caller.organizationId, body.slug, id)) throw conflict(`the slug ${body.slug} is taken in this organization`, [{ path: '/slug', message: 'taken' }])
          patch.slug = body.slug
        }
        if (contentChanged) {
          patch.current_version = row.current_version + 1
          await templates.insertVersion(tx, store.dialect, { templateId: id, version: row.current_version + 1, content: JSON.stringify(content), searchText: searchTextOf(content, names), tags: content.tags, at, by })
        }
        // A public template's new content (or its move to public) waits for moderation; the public
        // keeps the approved version. An org template is approved as it is.
        if (visibility === 'public' && (contentChanged || row.visibility !== 'public')) {
          Object.assign(patch, { moderation_status: 'pending', submitted_at: at, rejection_reason: null })
        } else if (visibility === 'org') {
          Object.assign(patch, { moderation_status: 'approved', public_version: null, is_promoted: 0, promoted_at: null, promoted_by: null, promoted_order: null })
        }
        await templates.update(tx, id, patch)
      })
      changed()
      return (await toTemplates(caller, [await shown(caller, id)]))[0]
    },

    async archive(caller: Principal, id: string, archived: boolean): Promise<Template> {
      await ownRow(caller, id)
      await store.write((tx) => templates.update(tx, id, { archived: archived ? 1 : 0, updated_at: clock.now(), updated_by: actorOf(caller) }))
      changed()
      return (await toTemplates(caller, [await shown(caller, id)]))[0]
    },

    async approve(caller: Principal, id: string): Promise<Template> {
      await store.write(async (tx) => {
        const row = await moderationTarget(caller, id, tx)
        if (row.visibility !== 'public' || row.moderation_status !== 'pending') throw conflict(`only a pending public template can be approved; this one is ${row.visibility === 'public' ? row.moderation_status : 'an org template'}`)
        const at = clock.now()
        await templates.update(tx, id, { moderation_status: 'approved', public_version: row.current_version, reviewed_at: at, reviewed_by: actorOf(caller), rejection_reason: null })
        await templates.moderate(tx, { id: deps.ids.next('evt'), templateId: id, version: row.current_version, decision: 'approved', reason: null, by: actorOf(caller), at })
      })
      changed()
      return (await toTemplates(caller, [(await templates.shown(store, (await templates.byId(store, id))!.organization_id, id))!]))[0]
    },

    async reject(caller: Principal, id: string, reason: string): Promise<Template> {
      await store.write(async (tx) => {
        const row = await moderationTarget(caller, id, tx)
        if (row.visibility !== 'public' || row.moderation_status !== 'pending') throw conflict(`only a pending public template can be rejected; this one is ${row.visibility === 'public' ? row.moderation_status : 'an org template'}`)
        const at = clock.now()
        await templates.update(tx, id, { moderation_status: 'rejected', rejection_reason: reason, reviewed_at: at, reviewed_by: actorOf(caller) })
        await templates.moderate(tx, { id: deps.ids.next('evt'), templateId: id, version: row.current_version, decision: 'rejected', reason, by: actorOf(caller), at })
      })
      changed()
      return (await toTemplates(caller, [(await templates.shown(store, (await templates.byId(store, id))!.organization_id, id))!]))[0]
    },

    async moderationLog(caller: Principal, id: string) {
      const row = await templates.byId(store, id)
      const moderator = caller.permissions.has('template:moderate')
      if (!row || (row.organization_id !== caller.organizationId && !moderator)) throw notFound('template')
      const items = (await templates.moderationLog(store, id)).map((m) => ({
        id: m.id, version: m.version, decision: m.decision, reason: m.reason ?? '', decidedBy: m.decided_by, decidedAt: iso(m.decided_at),
      }))
      return { items }
    },

    async promote(caller: Principal, id: string, order: number | null): Promise<Template> {
      await store.write(async (tx) => {
        const row = await moderationTarget(caller, id, tx)
        if (order !== null && (row.visibility !== 'public' || row.public_version === null || row.archived === 1)) {
          throw conflict('only an approved public template can be promoted')
        }
        await templates.update(tx, id, order === null
          ? { is_promoted: 0, promoted_at: null, promoted_by: null, promoted_order: null }
          : { is_promoted: 1, promoted_at: clock.now(), promoted_by: actorOf(caller), promoted_order: order })
      })
      changed()
      const owner = (await templates.byId(store, id))!.organization_id
      return (await toTemplates(caller, [(await templates.shown(store, owner, id))!]))[0]
    },

    /** A draft workflow in the caller's organization from the version the caller sees. */
    async fork(caller: Principal, id: string, body: ForkBody) {
      const row = await shown(caller, id)
      if (row.archived === 1 && row.organization_id !== caller.organizationId) throw notFound('template')
      const content = JSON.parse(row.content) as TemplateContent
      const { values, errors } = checkPropValues(content.templateProps, body.propValues ?? {})
      // Each node that needs a connector gets one of the caller's, named in `connectors`.
      const definition = structuredClone(content.definition)
      for (const [nodeId, connectorId] of Object.entries(body.connectors ?? {})) {
        const node = definition.nodes[nodeId]
        if (!node) {
          errors.push({ path: `/connectors/${nodeId}`, message: 'no such node in the template' })
          continue
        }
        const c = await store.get<{ type: string }>('SELECT type FROM connectors WHERE id = $1 AND organization_id = $2', [connectorId, caller.organizationId])
        if (!c) errors.push({ path: `/connectors/${nodeId}`, message: 'no such connector in this organization' })
        else node.connector = { type: c.type, id: connectorId }
      }
      if (row.organization_id !== caller.organizationId) {
        for (const [nodeId, node] of Object.entries(definition.nodes)) {
          if (node.connector?.id && body.connectors?.[nodeId] === undefined) node.connector = { ...node.connector, id: undefined }
        }
      }
      if (errors.length > 0) throw badRequest('the prop values do not fit the template', errors)
      const sensitive = new Set(content.templateProps.filter((p) => p.sensitive).map((p) => p.key))
      const plain: Record<string, unknown> = {}
      const secret: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(values)) (sensitive.has(key) ? secret : plain)[key] = value
      const sealed = Object.keys(secret).length > 0 ? await deps.secretBox.seal(JSON.stringify(secret)) : null
      const app = row.generated_app_id ? await apps.byIdAny(store, row.generated_app_id) : undefined
      const appVersion = app
        ? row.generated_app_version_id
          ? await apps.versionById(store, row.generated_app_version_id)
          : await apps.version(store, app.id, app.latest_version)
        : undefined
      const workflow = await deps.workflows.create(caller, {
        name: body.name ?? content.name, description: content.description, definition,
        cooldownMs: content.cooldownMs, maxRuns: content.maxRuns, uiMetadata: content.uiMetadata, sourceTemplateId: id,
      }, async (tx, workflowId) => {
        await workflows.setPropValues(tx, workflowId, JSON.stringify(plain), sealed)
        await templates.countFork(tx, id)
        if (app && appVersion) {
          const at = clock.now()
          const by = actorOf(caller)
          const appId = deps.ids.next('app')
          await apps.insert(tx, { id: appId, organization_id: caller.organizationId, name: app.name, latest_version: 1, created_at: at, created_by: by, updated_at: at, updated_by: by })
          await apps.insertVersion(tx, { id: deps.ids.next('app'), appId, version: 1, files: appVersion.files, size: appVersion.size, at, by })
          await workflows.setApp(tx, workflowId, appId, null)
        }
      })
      changed()
      if (sealed) deps.onSealed?.(caller.organizationId)
      const linked = await store.get<{ app_id: string | null }>('SELECT app_id FROM workflows WHERE id = $1', [workflow.id])
      return { workflow, appId: linked?.app_id ?? null, propValues: maskSensitive(values, sensitive) }
    },

    // --- tags ---------------------------------------------------------------------------------

    async listTags(caller: Principal, query: TagListQuery) {
      if (query.limit > 1000) {
        const key = query.paginationBypassKey
        if (!key || !deps.paginationBypassKey || !timingSafeEqual(key, deps.paginationBypassKey)) {
          throw badRequest('limit above 1000 needs a valid pagination_bypass_key', [{ path: '/limit', in: 'query', message: 'must be at most 1000 without pagination_bypass_key' }])
        }
        if (query.limit > 10_000) throw badRequest('limit must be at most 10000', [{ path: '/limit', in: 'query', message: 'must be at most 10000' }])
      } else if (query.paginationBypassKey !== undefined && (!deps.paginationBypassKey || !timingSafeEqual(query.paginationBypassKey, deps.paginationBypassKey))) {
        throw badRequest('wrong pagination_bypass_key', [{ path: '/pagination_bypass_key', in: 'query', message: 'not the configured key' }])
      }
      let list = await tagRecords(caller.organizationId, query.scope ?? 'all')
      if (query.category) list = list.filter((t) => t.categories.includes(query.category!))
      if (query.search) {
        const q = query.search.toLowerCase()
        list = list.filter((t) => `${t.name} ${t.description}`.toLowerCase().includes(q))
      }
      list.sort(query.sortByCount
        ? (a, b) => b.count - a.count || b.weight - a.weight || a.name.localeCompare(b.name)
        : (a, b) => b.weight - a.weight || a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug))
      const interests = await interestsOf(caller)
      const page = list.slice(query.offset, query.offset + query.limit)
      const items = interests ? page.map((t) => ({ ...t, interested: interests.includes(t.slug) })) : page
      return { hasMore: list.length > query.offset + query.limit, items, limit: query.limit, offset: query.offset }
    },

    async createTag(caller: Principal, body: { slug: string; name: string; description?: string; imageUrl?: string; categories?: string[]; weight?: number }): Promise<Tag> {
      requireModerator(caller)
      const at = clock.now()
      const id = deps.ids.next('tag')
      await store.write(async (tx) => {
        if (await tags.bySlug(tx, body.slug)) throw conflict(`the tag ${body.slug} exists`, [{ path: '/slug', message: 'taken' }])
        await tags.insert(tx, {
          id, slug: body.slug, name: body.name, description: body.description ?? '', image_url: body.imageUrl ?? '',
          categories: JSON.stringify(body.categories ?? []), weight: body.weight ?? 0, created_at: at, updated_at: at,
        })
      })
      changed()
      return (await tagRecords(caller.organizationId, 'all')).find((t) => t.id === id)!
    },

    async updateTag(caller: Principal, id: string, body: Partial<{ slug: string; name: string; description: string; imageUrl: string; categories: string[]; weight: number }>): Promise<Tag> {
      requireModerator(caller)
      await store.write(async (tx) => {
        const row = await tags.byId(tx, id)
        if (!row) throw notFound('tag')
        if (body.slug && body.slug !== row.slug) {
          if (await tags.bySlug(tx, body.slug)) throw conflict(`the tag ${body.slug} exists`, [{ path: '/slug', message: 'taken' }])
          if (await templates.tagInUse(tx, row.slug)) {
            throw conflict('templates carry this tag: its slug cannot change', [{ path: '/slug', message: 'in use' }])
          }
        }
        await tags.update(tx, {
          ...row, slug: body.slug ?? row.slug, name: body.name ?? row.name, description: body.description ?? row.description,
          image_url: body.imageUrl ?? row.image_url, categories: body.categories ? JSON.stringify(body.categories) : row.categories,
          weight: body.weight ?? row.weight, updated_at: clock.now(),
        })
      })
      changed()
      return (await tagRecords(caller.organizationId, 'all')).find((t) => t.id === id)!
    },

    async deleteTag(caller: Principal, id: string) {
      requireModerator(caller)
      const changedRows = await store.write((tx) => tags.remove(tx, id))
      if (changedRows === 0) throw notFound('tag')
      changed()
      return { id, deleted: true as const }
    },
  }
}

function maskSensitive(values: Record<string, unknown>, sensitive: ReadonlySet<string>) {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, sensitive.has(k) ? '********' : v]))
}

/** Only owners of the operator organization moderate templates and manage tags. */
export function createOperatorCheck(deps: { store: Store; clock: Clock; operatorOrganization: string }) {
  let resolved: string | null = null
  // Until the organization exists, it is looked for again at most every few seconds.
  let missedAt = -Infinity
  return {
    async isOperator(organizationId: string): Promise<boolean> {
      if (resolved === null) {
        if (deps.clock.now() - missedAt < 5000) return false
        const row = await deps.store.get<{ id: string }>('SELECT id FROM organizations WHERE id = $1 OR name = $1 ORDER BY created_at LIMIT 1', [deps.operatorOrganization])
        if (!row) {
          missedAt = deps.clock.now()
          return false
        }
        resolved = row.id
      }
      return organizationId === resolved
    },
  }
}

export type TemplateService = ReturnType<typeof createTemplateService>
