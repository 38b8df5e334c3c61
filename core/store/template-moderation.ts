/** The moderation log of templates: every decision on a public template's version. */
import type { SqlExecutor } from '../ports/store.ts'

export const templateModeration = {
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
}
