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
 *   attached app into the adopting organization: other organizations get the app version approval
 *   pinned; a new reference, or a new version of a followed app, goes back to review.
 *
 * This file keeps the reads and the operation table; each use case has a file of its own
 * (template-authoring.ts, template-moderation.ts, template-forking.ts, template-tags.ts,
 * template-apps.ts), sharing template-context.ts.
 */
import type { Static } from '@sinclair/typebox'
import type { Page, PageRequest } from '../domain/common.ts'
import type {
  CreateTemplateBody,
  ForkBody,
  Tag,
  TagBody,
  Template,
  TemplateSort,
  UpdateTemplateBody,
} from '../domain/template.ts'
import type { Workflow } from '../domain/workflow.ts'
import { notFound } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import { organizations } from '../store/organizations.ts'
import { templates, type TemplateFilter } from '../store/templates.ts'
import { ensureTrigramIndex } from '../store/trigram.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'
import { authoringOperations } from './template-authoring.ts'
import { createTemplateContext, type TemplateServiceDeps } from './template-context.ts'
import { forkingOperations } from './template-forking.ts'
import { moderationOperations } from './template-moderation.ts'
import { type TagListQuery, tagOperations } from './template-tags.ts'

export type { TemplateServiceDeps } from './template-context.ts'
export type { TagListQuery } from './template-tags.ts'

export interface TemplateListQuery extends Omit<TemplateFilter, 'preferTags'> {
  sort?: TemplateSort
}

/** One decision of the moderation log. */
export interface ModerationDecision {
  id: string
  version: number
  decision: string
  /** Why a version was rejected ('' for an approval). */
  reason: string
  decidedBy: string
  decidedAt: string
}

/** What a fork made: the draft workflow, the app copied with it, and the prop values (sensitive ones masked). */
export interface TemplateFork {
  workflow: Workflow
  /** "" when the template has no app */
  appId: string
  propValues: Record<string, unknown>
}

/**
 * The template service. Every operation given a caller checks the caller's permissions first
 * (the table in createTemplateService); reads show a template at the version the caller may see.
 */
export interface TemplateService {
  /** Every tag slug a template may carry: the tag records' and the catalog's. */
  knownTagSlugs(): Promise<Set<string>>
  /** On Postgres, a trigram index for template search (SQLite has its FTS5 table); false when none was made. */
  ensureSearchIndex(logger: Logger): Promise<boolean>

  /** One template; a reviewer reads what waits for review, everyone else what they may fork. */
  get(caller: Principal, id: string): Promise<Template>
  /** The caller's organization's templates and approved public ones, filtered and sorted. */
  list(caller: Principal, page: PageRequest, query: TemplateListQuery): Promise<Page<Template>>
  /** A template's versions up to the one the caller sees, newest first. */
  versions(caller: Principal, id: string, page: PageRequest): Promise<Page<Template>>
  /** One version, when the caller may see it. */
  version(caller: Principal, id: string, version: number): Promise<Template>

  /** Publishes a workflow of the organization, or a definition, as a template (version 1). */
  create(caller: Principal, body: CreateTemplateBody): Promise<Template>
  /** Changes a template: new content is a new version, which a public template submits for review. */
  update(caller: Principal, id: string, body: UpdateTemplateBody): Promise<Template>
  /** Archives a template (it leaves listings) or brings it back. */
  archive(caller: Principal, id: string, archived: boolean): Promise<Template>

  /** Approves a pending public template's latest version (operator organization). */
  approve(caller: Principal, id: string): Promise<Template>
  /** Rejects a pending public template's latest version with a reason (operator organization). */
  reject(caller: Principal, id: string, reason: string): Promise<Template>
  /** Every moderation decision on a template, oldest first. */
  moderationLog(caller: Principal, id: string): Promise<{ items: ModerationDecision[] }>
  /** Promotes an approved public template (lower order first), or stops promoting it (null). */
  promote(caller: Principal, id: string, order: number | null): Promise<Template>

  /** A draft workflow in the caller's organization from the version the caller sees. */
  fork(caller: Principal, id: string, body: ForkBody): Promise<TemplateFork>

  /** A page of tags with their counts in the scope asked for. */
  listTags(caller: Principal, query: TagListQuery): Promise<Page<Tag>>
  /** Creates a tag (operator organization). */
  createTag(caller: Principal, body: Static<typeof TagBody>): Promise<Tag>
  /** Changes a tag; a slug that templates carry cannot change (operator organization). */
  updateTag(caller: Principal, id: string, body: Partial<Static<typeof TagBody>>): Promise<Tag>
  /** Deletes a tag record (operator organization). */
  deleteTag(caller: Principal, id: string): Promise<{ id: string; deleted: true }>
}

export function createTemplateService(deps: TemplateServiceDeps): TemplateService {
  const { store } = deps
  const ctx = createTemplateContext(deps)

  /** A caller who moderates templates reviews them: the latest version of every public one, and its real status. */
  const reviews = (caller: Principal) => caller.permissions.has('template:moderate')

  const reading = {
    knownTagSlugs: () => ctx.tagIndex.knownSlugs(),

    /** On Postgres, a trigram index for template search (SQLite has its FTS5 table). */
    ensureSearchIndex: (logger: Logger) =>
      ensureTrigramIndex(store, logger, {
        name: 'template_versions_search_trgm',
        table: 'template_versions',
        column: 'search_text',
        what: 'templates',
      }),

    async get(caller: Principal, id: string): Promise<Template> {
      // A reviewer reads what waits for review; everyone else, what they may fork.
      if (reviews(caller)) {
        const row = await templates.shown(store, caller.organizationId, id, true)
        if (!row) throw notFound('template')
        return (await ctx.toTemplates(caller, [row], true))[0]
      }
      return ctx.reread(caller, id)
    },

    async list(caller: Principal, page: PageRequest, query: TemplateListQuery) {
      // Personalised only without an explicit sort, and only when the person turned it on.
      const preferTags = query.sort === undefined ? ((await ctx.tagIndex.interestsOf(caller)) ?? undefined) : undefined
      // Asking by moderation status, a reviewer gets the queue: every organization's submissions.
      const reviewer = query.moderationStatus !== undefined && reviews(caller)
      const rows = await templates.list(
        store,
        store.dialect,
        caller.organizationId,
        { ...query, preferTags, reviewer },
        page.limit + 1,
        page.offset,
      )
      return {
        hasMore: rows.length > page.limit,
        items: await ctx.toTemplates(caller, rows.slice(0, page.limit), reviewer),
        limit: page.limit,
        offset: page.offset,
      }
    },

    async versions(caller: Principal, id: string, page: PageRequest) {
      const row = await ctx.shown(caller, id)
      const versions = await templates.versions(store, id, row.shown_version, page.limit + 1, page.offset)
      const items = await ctx.toTemplates(
        caller,
        versions.slice(0, page.limit).map((v) => ({ ...row, shown_version: v.version, content: v.content })),
      )
      return { hasMore: versions.length > page.limit, items, limit: page.limit, offset: page.offset }
    },

    async version(caller: Principal, id: string, version: number): Promise<Template> {
      const row = await ctx.shown(caller, id)
      const v = version <= row.shown_version ? await templates.version(store, id, version) : undefined
      if (!v) throw notFound(`version ${version} of template`)
      return (await ctx.toTemplates(caller, [{ ...row, shown_version: v.version, content: v.content }]))[0]
    },
  }

  return guarded<TemplateService>(
    'templates',
    {
      get: ['workflow:read'],
      list: ['workflow:read'],
      versions: ['workflow:read'],
      version: ['workflow:read'],
      moderationLog: ['workflow:read'],
      listTags: ['workflow:read'],
      create: ['template:write'],
      update: ['template:write'],
      archive: ['template:write'],
      approve: ['template:moderate'],
      reject: ['template:moderate'],
      promote: ['template:moderate'],
      createTag: ['template:moderate'],
      updateTag: ['template:moderate'],
      deleteTag: ['template:moderate'],
      fork: ['workflow:create'],
      knownTagSlugs: null,
      ensureSearchIndex: null,
    },
    {
      ...reading,
      ...authoringOperations(ctx),
      ...moderationOperations(ctx),
      ...forkingOperations(ctx),
      ...tagOperations(ctx),
    },
  )
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
        const id = await organizations.idByIdOrName(deps.store, deps.operatorOrganization)
        if (!id) {
          missedAt = deps.clock.now()
          return false
        }
        resolved = id
      }
      return organizationId === resolved
    },
  }
}
