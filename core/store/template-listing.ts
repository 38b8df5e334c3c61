/**
 * Reading templates as a caller sees them: one, or a filtered, searched and sorted page.
 *
 * The version a caller sees: their own organization's templates at the current version, other
 * organizations' public templates at the last approved one (`public_version`). Listings, tag
 * filters and search all join that version.
 */
import type { ModerationStatus, TemplateSort, TemplateVisibility } from '../domain/template.ts'
import type { Dialect, SqlExecutor, SqlValue } from '../ports/store.ts'
import type { ShownTemplateRow } from './template-records.ts'

export interface TemplateFilter {
  visibility?: TemplateVisibility
  tags?: string[]
  search?: string
  moderationStatus?: ModerationStatus
  promoted?: boolean
  organizationId?: string
  archived?: boolean
  sort?: TemplateSort
  /** Templates carrying one of these tags first (the interests switch). */
  preferTags?: string[]
  /** The moderation queue: every public template at its latest version, with its real status. */
  reviewer?: boolean
}

/** A LIKE pattern that matches `text` literally. */
export const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)
/** A GLOB pattern that matches `text` literally. */
export const globLiteral = (text: string) => text.replace(/[*?[\]]/g, (c) => `[${c}]`)

/** The version of `t` the caller's organization (`$1`) sees. */
const SHOWN = 'CASE WHEN t.organization_id = $1 THEN t.current_version ELSE t.public_version END'
/** Templates the caller's organization (`$1`) may see at all. */
const VISIBLE =
  "(t.organization_id = $1 OR (t.visibility = 'public' AND t.public_version IS NOT NULL AND t.archived = 0))"
/** A reviewer (template:moderate) sees every public template at its latest version, pending ones too. */
const SHOWN_TO_REVIEWER =
  "CASE WHEN t.organization_id = $1 OR t.visibility = 'public' THEN t.current_version ELSE t.public_version END"
const VISIBLE_TO_REVIEWER = "(t.organization_id = $1 OR t.visibility = 'public')"

/** The ORDER BY terms of each sort, before the template id that breaks ties. */
const SORT_ORDER: Record<TemplateSort, readonly string[]> = {
  promoted: [
    't.is_promoted DESC',
    `(CASE WHEN t.promoted_order IS NULL THEN 1 ELSE 0 END)`,
    't.promoted_order',
    't.fork_count DESC',
    't.updated_at DESC',
  ],
  popular: ['t.fork_count DESC', 't.updated_at DESC'],
  recent: ['t.updated_at DESC'],
  name: ['v.search_text'],
}

export const templateListing = {
  /** One template as `organizationId` sees it (as a reviewer sees it, with `reviewer`), or undefined when it may not. */
  shown: (db: SqlExecutor, organizationId: string, id: string, reviewer = false) =>
    db.get<ShownTemplateRow>(
      `SELECT t.*, v.version AS shown_version, v.content, o.name AS organization_name FROM templates t
       JOIN template_versions v ON v.template_id = t.id AND v.version = ${reviewer ? SHOWN_TO_REVIEWER : SHOWN}
       JOIN organizations o ON o.id = t.organization_id
       WHERE t.id = $2 AND ${reviewer ? VISIBLE_TO_REVIEWER : VISIBLE}`,
      [organizationId, id],
    ),

  list(
    db: SqlExecutor,
    dialect: Dialect,
    organizationId: string,
    filter: TemplateFilter,
    limit: number,
    offset: number,
  ) {
    const params: SqlValue[] = [organizationId]
    const p = (value: SqlValue) => {
      params.push(value)
      return `$${params.length}`
    }
    const reviewer = filter.reviewer === true
    const shownVersion = reviewer ? SHOWN_TO_REVIEWER : SHOWN
    const where = [reviewer ? VISIBLE_TO_REVIEWER : VISIBLE]
    where.push(`t.archived = ${filter.archived ? 1 : 0}`)
    if (filter.visibility) where.push(`t.visibility = ${p(filter.visibility)}`)
    if (filter.organizationId) where.push(`t.organization_id = ${p(filter.organizationId)}`)
    if (filter.moderationStatus) {
      // Others' templates are seen at their approved version; a reviewer sees what moderation says.
      where.push(
        reviewer
          ? `t.moderation_status = ${p(filter.moderationStatus)}`
          : `(CASE WHEN t.organization_id = $1 THEN t.moderation_status ELSE 'approved' END) = ${p(filter.moderationStatus)}`,
      )
    }
    if (filter.promoted !== undefined) where.push(`t.is_promoted = ${filter.promoted ? 1 : 0}`)
    for (const tag of filter.tags ?? []) {
      where.push(
        `EXISTS (SELECT 1 FROM template_tags tt WHERE tt.template_id = t.id AND tt.version = v.version AND tt.slug = ${p(tag)})`,
      )
    }
    // On SQLite a search starts from the trigram index: the versions whose text matches, then
    // their templates (rather than every visible template, each checked against the matches).
    let from = `templates t JOIN template_versions v ON v.template_id = t.id AND v.version = ${shownVersion}`
    if (filter.search) {
      const text = filter.search.toLowerCase()
      if (dialect === 'sqlite') {
        // GLOB, not LIKE … ESCAPE: FTS5 answers a GLOB from its index, but not a LIKE with ESCAPE.
        // CROSS JOIN keeps that order.
        from =
          'template_search s CROSS JOIN template_versions v ON v.rowid = s.rowid CROSS JOIN templates t ON t.id = v.template_id'
        where.push(`s.search_text GLOB ${p(`*${globLiteral(text)}*`)}`, `v.version = ${shownVersion}`)
      } else where.push(`v.search_text LIKE ${p(`%${likeLiteral(text)}%`)} ESCAPE '\\'`)
    }
    const order: string[] = []
    if (filter.preferTags && filter.preferTags.length > 0) {
      const list = filter.preferTags.map((tag) => p(tag)).join(', ')
      order.push(
        `(CASE WHEN EXISTS (SELECT 1 FROM template_tags tp WHERE tp.template_id = t.id AND tp.version = v.version AND tp.slug IN (${list})) THEN 0 ELSE 1 END)`,
      )
    }
    order.push(...SORT_ORDER[filter.sort ?? 'promoted'])
    order.push('t.id')
    return db.all<ShownTemplateRow>(
      `SELECT t.*, v.version AS shown_version, v.content, o.name AS organization_name FROM ${from}
       JOIN organizations o ON o.id = t.organization_id
       WHERE ${where.join(' AND ')} ORDER BY ${order.join(', ')} LIMIT ${p(limit)} OFFSET ${p(offset)}`,
      params,
    )
  },
}
