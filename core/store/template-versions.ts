/** The versions of a template: their content, search text and tags. */
import type { Dialect, SqlExecutor, SqlValue } from '../ports/store.ts'

export const templateVersions = {
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
  tagInUse: async (db: SqlExecutor, slug: string) =>
    (await db.get('SELECT 1 AS one FROM template_tags WHERE slug = $1 LIMIT 1', [slug])) !== undefined,
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
