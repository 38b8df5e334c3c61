/**
 * Rows of templates, their versions, tags and moderation log, and of tags and apps.
 *
 * The version a caller sees: their own organization's templates at the current version, other
 * organizations' public templates at the last approved one (`public_version`). Listings, tag
 * filters, search and tag counts all join that version.
 */
import type { ModerationStatus, TemplateSort, TemplateVisibility } from '../domain/template.ts'
import { type Dialect, forUpdate, type SqlExecutor, type SqlValue } from '../ports/store.ts'

export interface TemplateRow {
  id: string
  organization_id: string
  slug: string
  visibility: TemplateVisibility
  moderation_status: ModerationStatus
  rejection_reason: string | null
  submitted_at: number | null
  reviewed_at: number | null
  reviewed_by: string | null
  public_version: number | null
  current_version: number
  is_promoted: number
  promoted_at: number | null
  promoted_by: string | null
  promoted_order: number | null
  fork_count: number
  archived: number
  source_workflow_id: string | null
  generated_app_id: string | null
  generated_app_version_id: string | null
  /** The app and version the last approval saw: what other organizations' forks receive. */
  approved_app_id: string | null
  approved_app_version_id: string | null
  created_at: number
  created_by: string
  updated_at: number
  updated_by: string
}

/** A template with the content of the version shown. */
export interface ShownTemplateRow extends TemplateRow {
  shown_version: number
  content: string
  organization_name: string
}

export interface TagRow {
  id: string
  slug: string
  name: string
  description: string
  image_url: string
  categories: string
  weight: number
  created_at: number
  updated_at: number
}

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

export const templates = {
  async insert(db: SqlExecutor, r: TemplateRow) {
    const keys = Object.keys(r) as (keyof TemplateRow)[]
    await db.run(
      `INSERT INTO templates (${keys.join(', ')}) VALUES (${keys.map((_, i) => `$${i + 1}`).join(', ')})`,
      keys.map((k) => r[k] as SqlValue),
    )
  },
  async update(db: SqlExecutor, id: string, patch: Partial<TemplateRow>) {
    const keys = Object.keys(patch) as (keyof TemplateRow)[]
    if (keys.length === 0) return 0
    return db.run(
      `UPDATE templates SET ${keys.map((k, i) => `${k} = $${i + 1}`).join(', ')} WHERE id = $${keys.length + 1}`,
      [...keys.map((k) => patch[k] as SqlValue), id],
    )
  },
  byId: (db: SqlExecutor, id: string) => db.get<TemplateRow>('SELECT * FROM templates WHERE id = $1', [id]),
  /** The row, locked until the transaction ends: a decision on it sees the latest change. */
  lockById: (db: SqlExecutor, dialect: Dialect, id: string) =>
    db.get<TemplateRow>(`SELECT * FROM templates WHERE id = $1${forUpdate(dialect)}`, [id]),
  /**
   * A new version of an app changes what the public templates following it (no pinned version)
   * hand out: they go back to review, and other organizations keep forking the approved version.
   */
  resubmitFollowersOf: (db: SqlExecutor, organizationId: string, appId: string, at: number) =>
    db.run(
      `UPDATE templates SET moderation_status = 'pending', submitted_at = $3, rejection_reason = NULL
       WHERE organization_id = $1 AND generated_app_id = $2 AND generated_app_version_id IS NULL AND visibility = 'public'`,
      [organizationId, appId, at],
    ),
  countFork: (db: SqlExecutor, id: string) =>
    db.run('UPDATE templates SET fork_count = fork_count + 1 WHERE id = $1', [id]),
  tagInUse: async (db: SqlExecutor, slug: string) =>
    (await db.get('SELECT 1 AS one FROM template_tags WHERE slug = $1 LIMIT 1', [slug])) !== undefined,
  slugTaken: async (db: SqlExecutor, organizationId: string, slug: string, except = '') =>
    (await db.get('SELECT 1 AS one FROM templates WHERE organization_id = $1 AND slug = $2 AND id <> $3', [
      organizationId,
      slug,
      except,
    ])) !== undefined,
  async insertVersion(
    db: SqlExecutor,
    dialect: Dialect,
    v: {
      templateId: string
      version: number
      content: string
      searchText: string
      tags: readonly string[]
      at: number
      by: string
    },
  ) {
    await db.run(
      'INSERT INTO template_versions (template_id, version, content, search_text, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6)',
      [v.templateId, v.version, v.content, v.searchText, v.at, v.by],
    )
    if (dialect === 'sqlite') {
      await db.run(
        'INSERT INTO template_search (rowid, search_text) SELECT rowid, search_text FROM template_versions WHERE template_id = $1 AND version = $2',
        [v.templateId, v.version],
      )
    }
    for (const slug of new Set(v.tags))
      await db.run('INSERT INTO template_tags (template_id, version, slug) VALUES ($1, $2, $3)', [
        v.templateId,
        v.version,
        slug,
      ])
  },
  version: (db: SqlExecutor, templateId: string, version: number) =>
    db.get<{ version: number; content: string; created_at: number; created_by: string }>(
      'SELECT version, content, created_at, created_by FROM template_versions WHERE template_id = $1 AND version = $2',
      [templateId, version],
    ),
  versions: (db: SqlExecutor, templateId: string, upTo: number, limit: number, offset: number) =>
    db.all<{ version: number; content: string; created_at: number; created_by: string }>(
      'SELECT version, content, created_at, created_by FROM template_versions WHERE template_id = $1 AND version <= $2 ORDER BY version DESC LIMIT $3 OFFSET $4',
      [templateId, upTo, limit, offset],
    ),

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
    switch (filter.sort ?? 'promoted') {
      case 'promoted':
        order.push(
          't.is_promoted DESC',
          `(CASE WHEN t.promoted_order IS NULL THEN 1 ELSE 0 END)`,
          't.promoted_order',
          't.fork_count DESC',
          't.updated_at DESC',
        )
        break
      case 'popular':
        order.push('t.fork_count DESC', 't.updated_at DESC')
        break
      case 'recent':
        order.push('t.updated_at DESC')
        break
      case 'name':
        order.push('v.search_text')
        break
    }
    order.push('t.id')
    return db.all<ShownTemplateRow>(
      `SELECT t.*, v.version AS shown_version, v.content, o.name AS organization_name FROM ${from}
       JOIN organizations o ON o.id = t.organization_id
       WHERE ${where.join(' AND ')} ORDER BY ${order.join(', ')} LIMIT ${p(limit)} OFFSET ${p(offset)}`,
      params,
    )
  },

  async moderate(
    db: SqlExecutor,
    m: {
      id: string
      templateId: string
      version: number
      decision: string
      reason: string | null
      by: string
      at: number
    },
  ) {
    await db.run(
      'INSERT INTO template_moderation (id, template_id, version, decision, reason, decided_by, decided_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [m.id, m.templateId, m.version, m.decision, m.reason, m.by, m.at],
    )
  },
  moderationLog: (db: SqlExecutor, templateId: string) =>
    db.all<{
      id: string
      version: number
      decision: string
      reason: string | null
      decided_by: string
      decided_at: number
    }>('SELECT * FROM template_moderation WHERE template_id = $1 ORDER BY decided_at, id', [templateId]),
  /** Tag slugs of the versions given as (template id, version) pairs. */
  async tagsOf(db: SqlExecutor, shown: ReadonlyArray<{ id: string; version: number }>): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>()
    if (shown.length === 0) return out
    const params: SqlValue[] = []
    const pairs = shown.map((s) => {
      params.push(s.id, s.version)
      return `(template_id = $${params.length - 1} AND version = $${params.length})`
    })
    for (const row of await db.all<{ template_id: string; version: number; slug: string }>(
      `SELECT template_id, version, slug FROM template_tags WHERE ${pairs.join(' OR ')} ORDER BY slug`,
      params,
    )) {
      const key = `${row.template_id}@${row.version}`
      if (!out.has(key)) out.set(key, [])
      out.get(key)!.push(row.slug)
    }
    return out
  },
}

export const tags = {
  async insert(db: SqlExecutor, r: TagRow) {
    await db.run(
      'INSERT INTO tags (id, slug, name, description, image_url, categories, weight, search_text, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
      [
        r.id,
        r.slug,
        r.name,
        r.description,
        r.image_url,
        r.categories,
        r.weight,
        `${r.name} ${r.description}`.toLowerCase(),
        r.created_at,
        r.updated_at,
      ],
    )
  },
  async update(db: SqlExecutor, r: TagRow) {
    return db.run(
      'UPDATE tags SET slug = $1, name = $2, description = $3, image_url = $4, categories = $5, weight = $6, search_text = $7, updated_at = $8 WHERE id = $9',
      [
        r.slug,
        r.name,
        r.description,
        r.image_url,
        r.categories,
        r.weight,
        `${r.name} ${r.description}`.toLowerCase(),
        r.updated_at,
        r.id,
      ],
    )
  },
  remove: (db: SqlExecutor, id: string) => db.run('DELETE FROM tags WHERE id = $1', [id]),
  byId: (db: SqlExecutor, id: string) => db.get<TagRow>('SELECT * FROM tags WHERE id = $1', [id]),
  bySlug: (db: SqlExecutor, slug: string) => db.get<TagRow>('SELECT * FROM tags WHERE slug = $1', [slug]),
  all: (db: SqlExecutor) => db.all<TagRow>('SELECT * FROM tags'),
  slugs: async (db: SqlExecutor) => (await db.all<{ slug: string }>('SELECT slug FROM tags')).map((r) => r.slug),
  /** Per tag slug: approved public templates, promoted ones, and the organization's own (not archived). */
  counts: (db: SqlExecutor, organizationId: string) =>
    db.all<{ slug: string; public_count: number; promoted_count: number; org_count: number }>(
      `SELECT tt.slug,
         SUM(CASE WHEN t.visibility = 'public' AND tt.version = t.public_version THEN 1 ELSE 0 END) AS public_count,
         SUM(CASE WHEN t.visibility = 'public' AND tt.version = t.public_version AND t.is_promoted = 1 THEN 1 ELSE 0 END) AS promoted_count,
         SUM(CASE WHEN t.organization_id = $1 AND tt.version = t.current_version THEN 1 ELSE 0 END) AS org_count
       FROM template_tags tt JOIN templates t ON t.id = tt.template_id
       WHERE t.archived = 0 AND (tt.version = t.public_version OR tt.version = t.current_version)
       GROUP BY tt.slug`,
      [organizationId],
    ),
}

export interface AppRow {
  id: string
  organization_id: string
  name: string
  latest_version: number
  created_at: number
  created_by: string
  updated_at: number
  updated_by: string
}

export interface AppVersionRow {
  id: string
  version: number
  files: string
  size: number
  created_at: number
  created_by: string
}

export const apps = {
  async insert(db: SqlExecutor, r: AppRow) {
    await db.run(
      'INSERT INTO apps (id, organization_id, name, latest_version, created_at, created_by, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [r.id, r.organization_id, r.name, r.latest_version, r.created_at, r.created_by, r.updated_at, r.updated_by],
    )
  },
  async insertVersion(
    db: SqlExecutor,
    v: { id: string; appId: string; version: number; files: string; size: number; at: number; by: string },
  ) {
    await db.run(
      'INSERT INTO app_versions (id, app_id, version, files, size, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [v.id, v.appId, v.version, v.files, v.size, v.at, v.by],
    )
  },
  /** A new app with its first version, as made by a person or by a fork. */
  async create(
    db: SqlExecutor,
    a: {
      id: string
      versionId: string
      organizationId: string
      name: string
      files: string
      size: number
      at: number
      by: string
    },
  ) {
    await apps.insert(db, {
      id: a.id,
      organization_id: a.organizationId,
      name: a.name,
      latest_version: 1,
      created_at: a.at,
      created_by: a.by,
      updated_at: a.at,
      updated_by: a.by,
    })
    await apps.insertVersion(db, {
      id: a.versionId,
      appId: a.id,
      version: 1,
      files: a.files,
      size: a.size,
      at: a.at,
      by: a.by,
    })
  },
  byId: (db: SqlExecutor, organizationId: string, id: string) =>
    db.get<AppRow>('SELECT * FROM apps WHERE organization_id = $1 AND id = $2', [organizationId, id]),
  /** The organization's app, locked until the transaction ends: no new version lands meanwhile. */
  lockById: (db: SqlExecutor, dialect: Dialect, organizationId: string, id: string) =>
    db.get<AppRow>(`SELECT * FROM apps WHERE organization_id = $1 AND id = $2${forUpdate(dialect)}`, [
      organizationId,
      id,
    ]),
  byIdAny: (db: SqlExecutor, id: string) => db.get<AppRow>('SELECT * FROM apps WHERE id = $1', [id]),
  version: (db: SqlExecutor, appId: string, version: number) =>
    db.get<AppVersionRow>(
      'SELECT id, version, files, size, created_at, created_by FROM app_versions WHERE app_id = $1 AND version = $2',
      [appId, version],
    ),
  setLatest: (db: SqlExecutor, a: { id: string; name: string; latestVersion: number; at: number; by: string }) =>
    db.run('UPDATE apps SET name = $1, latest_version = $2, updated_at = $3, updated_by = $4 WHERE id = $5', [
      a.name,
      a.latestVersion,
      a.at,
      a.by,
      a.id,
    ]),
  /** A version by its id, only when it is one of `appId`'s and that app is the organization's. */
  versionOf: (db: SqlExecutor, organizationId: string, appId: string, versionId: string) =>
    db.get<AppVersionRow>(
      `SELECT v.id, v.version, v.files, v.size, v.created_at, v.created_by FROM app_versions v JOIN apps a ON a.id = v.app_id
       WHERE a.organization_id = $1 AND a.id = $2 AND v.id = $3`,
      [organizationId, appId, versionId],
    ),
}
