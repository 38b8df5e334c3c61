/**
 * What the template service's use cases share (authoring, moderation, forking, tags): their
 * dependencies, the tag index, and the template as a caller sees it. Other organizations see a
 * public template at its approved version, with its approved app, and nothing of what moderation
 * says about a newer one; a moderator reviews the latest version of every public template.
 */
import type { ErrorDetail } from '../errors.ts'
import { notFound } from '../errors.ts'
import type { Template, TemplateContent } from '../domain/template.ts'
import type { Definition } from '../domain/workflow.ts'
import type { Catalog } from '../plugin/catalog.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ids } from '../ports/ids.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { SqlExecutor, Store } from '../ports/store.ts'
import { type ShownTemplateRow, templates, type TemplateRow } from '../store/templates.ts'
import { iso } from '../time.ts'
import type { Principal } from './auth.ts'
import { createTagIndex, type TagIndex } from './template-tags.ts'
import type { WorkflowService } from './workflows.ts'

export interface TemplateServiceDeps {
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
}

export interface TemplateContext {
  deps: TemplateServiceDeps
  tagIndex: TagIndex
  /** Templates as `caller` sees them; `reviewer`: as a moderator reviews them. */
  toTemplates(caller: Principal, rows: readonly ShownTemplateRow[], reviewer?: boolean): Promise<Template[]>
  /** The template as `caller` sees it, at the version shown; 404 when they may not. */
  shown(caller: Principal, id: string): Promise<ShownTemplateRow>
  /** A template of the caller's organization; 404 otherwise. */
  ownRow(caller: Principal, id: string, db?: SqlExecutor): Promise<TemplateRow>
  /** The template as the caller sees it, after a change (read again). */
  reread(caller: Principal, id: string): Promise<Template>
}

const isoOr = (at: number | null) => (at === null ? '' : iso(at))

export function createTemplateContext(deps: TemplateServiceDeps): TemplateContext {
  const { store } = deps
  const tagIndex = createTagIndex(deps)

  async function toTemplates(
    caller: Principal,
    rows: readonly ShownTemplateRow[],
    reviewer = false,
  ): Promise<Template[]> {
    const slugsOf = await templates.tagsOf(
      store,
      rows.map((r) => ({ id: r.id, version: r.shown_version })),
    )
    const used = new Set([...slugsOf.values()].flat())
    const bySlug = new Map(
      (used.size > 0 ? await tagIndex.records(caller.organizationId, 'all', false, used) : []).map((t) => [t.slug, t]),
    )
    return rows.map((r) => {
      const content = JSON.parse(r.content) as TemplateContent
      const own = r.organization_id === caller.organizationId || reviewer
      return {
        id: r.id,
        name: content.name,
        slug: r.slug,
        description: content.description,
        archived: r.archived === 1,
        category: content.category ?? '',
        cooldownMs: content.cooldownMs,
        maxRuns: content.maxRuns,
        createdAt: iso(r.created_at),
        createdBy: r.created_by,
        updatedAt: iso(r.updated_at),
        updatedBy: r.updated_by,
        definition: content.definition,
        forkCount: r.fork_count,
        // Others are handed the app version approval pinned, and are told which.
        generatedAppId: (own ? r.generated_app_id : r.approved_app_id) ?? '',
        generatedAppVersionId: (own ? r.generated_app_version_id : r.approved_app_version_id) ?? '',
        isPromoted: r.is_promoted === 1,
        promotedAt: isoOr(r.promoted_at),
        promotedBy: r.promoted_by ?? '',
        promotedOrder: r.promoted_order,
        // Others see the approved version, and nothing of what moderation says about a newer one.
        moderationStatus: own ? r.moderation_status : 'approved',
        rejectionReason: own ? (r.rejection_reason ?? '') : '',
        reviewedAt: isoOr(r.reviewed_at),
        reviewedBy: r.reviewed_by ?? '',
        submittedAt: isoOr(r.submitted_at),
        organizationId: r.organization_id,
        organizationName: r.organization_name,
        organizationDescription: '',
        organizationPhoto: '',
        sourceWorkflowId: r.source_workflow_id ?? '',
        tableSchemas: content.tableSchemas,
        templateProps: content.templateProps,
        tags: (slugsOf.get(`${r.id}@${r.shown_version}`) ?? []).map((slug) => bySlug.get(slug)!).filter(Boolean),
        uiMetadata: content.uiMetadata,
        version: r.shown_version,
        visibility: r.visibility,
      }
    })
  }

  async function shown(caller: Principal, id: string): Promise<ShownTemplateRow> {
    const row = await templates.shown(store, caller.organizationId, id)
    if (!row) throw notFound('template')
    return row
  }

  return {
    deps,
    tagIndex,
    toTemplates,
    shown,
    async ownRow(caller, id, db = store) {
      const row = await templates.byId(db, id)
      if (!row || row.organization_id !== caller.organizationId) throw notFound('template')
      return row
    },
    reread: async (caller, id) => (await toTemplates(caller, [await shown(caller, id)]))[0],
  }
}
