/** The template records themselves: one row per template, with its moderation and promotion state. */
import type { ModerationStatus, TemplateVisibility } from '../domain/template.ts'
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

export const templateRecords = {
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
  slugTaken: async (db: SqlExecutor, organizationId: string, slug: string, except = '') =>
    (await db.get('SELECT 1 AS one FROM templates WHERE organization_id = $1 AND slug = $2 AND id <> $3', [
      organizationId,
      slug,
      except,
    ])) !== undefined,
}
