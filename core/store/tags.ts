/** The tag records: a tag's name, description, image and categories, by slug. */
import type { SqlExecutor } from '../ports/store.ts'

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
