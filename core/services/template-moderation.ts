/**
 * Moderating public templates: the operator organization approves or rejects a pending
 * submission (the moderation log keeps every decision) and promotes approved ones. Approval pins
 * the app version it saw: what other organizations' forks receive (template-apps.ts).
 */
import type { Template } from '../domain/template.ts'
import { conflict, notFound } from '../errors.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { templates, type TemplateRow } from '../store/templates.ts'
import { iso } from '../time.ts'
import { actorOf, type Principal, requirePermission } from './auth.ts'
import { approvalPin } from './template-apps.ts'
import type { TemplateContext } from './template-context.ts'

const pendingOnly = (row: TemplateRow, decision: 'approved' | 'rejected') => {
  if (row.visibility === 'public' && row.moderation_status === 'pending') return
  throw conflict(
    `only a pending public template can be ${decision}; this one is ${row.visibility === 'public' ? row.moderation_status : 'an org template'}`,
  )
}

/** The moderation operations of the template service. */
export function moderationOperations(ctx: TemplateContext) {
  const { deps, tagIndex } = ctx
  const { store, clock } = deps

  async function moderationTarget(caller: Principal, id: string, db: SqlExecutor): Promise<TemplateRow> {
    requirePermission(caller, 'template:moderate')
    // Locked: a decision sees the template's latest change, and no change lands before it commits.
    const row = await templates.lockById(db, store.dialect, id)
    if (!row) throw notFound('template')
    return row
  }

  /** The template after a decision, as its organization shows it, seen by the moderator: the decision included. */
  async function decided(caller: Principal, id: string): Promise<Template> {
    tagIndex.changed()
    const owner = (await templates.byId(store, id))!.organization_id
    return (await ctx.toTemplates(caller, [(await templates.shown(store, owner, id))!], true))[0]
  }

  return {
    async approve(caller: Principal, id: string): Promise<Template> {
      await store.write(async (tx) => {
        const row = await moderationTarget(caller, id, tx)
        pendingOnly(row, 'approved')
        const at = clock.now()
        // Forks by other organizations receive exactly the app version approved here.
        const pin = await approvalPin(tx, store.dialect, row)
        await templates.update(tx, id, {
          moderation_status: 'approved',
          public_version: row.current_version,
          ...pin,
          reviewed_at: at,
          reviewed_by: actorOf(caller),
          rejection_reason: null,
        })
        await templates.moderate(tx, {
          id: deps.ids.next('evt'),
          templateId: id,
          version: row.current_version,
          decision: 'approved',
          reason: null,
          by: actorOf(caller),
          at,
        })
      })
      return decided(caller, id)
    },

    async reject(caller: Principal, id: string, reason: string): Promise<Template> {
      await store.write(async (tx) => {
        const row = await moderationTarget(caller, id, tx)
        pendingOnly(row, 'rejected')
        const at = clock.now()
        await templates.update(tx, id, {
          moderation_status: 'rejected',
          rejection_reason: reason,
          reviewed_at: at,
          reviewed_by: actorOf(caller),
        })
        await templates.moderate(tx, {
          id: deps.ids.next('evt'),
          templateId: id,
          version: row.current_version,
          decision: 'rejected',
          reason,
          by: actorOf(caller),
          at,
        })
      })
      return decided(caller, id)
    },

    async moderationLog(caller: Principal, id: string) {
      const row = await templates.byId(store, id)
      const moderator = caller.permissions.has('template:moderate')
      if (!row || (row.organization_id !== caller.organizationId && !moderator)) throw notFound('template')
      const items = (await templates.moderationLog(store, id)).map((m) => ({
        id: m.id,
        version: m.version,
        decision: m.decision,
        reason: m.reason ?? '',
        decidedBy: m.decided_by,
        decidedAt: iso(m.decided_at),
      }))
      return { items }
    },

    async promote(caller: Principal, id: string, order: number | null): Promise<Template> {
      await store.write(async (tx) => {
        const row = await moderationTarget(caller, id, tx)
        if (order !== null && (row.visibility !== 'public' || row.public_version === null || row.archived === 1)) {
          throw conflict('only an approved public template can be promoted')
        }
        await templates.update(
          tx,
          id,
          order === null
            ? { is_promoted: 0, promoted_at: null, promoted_by: null, promoted_order: null }
            : { is_promoted: 1, promoted_at: clock.now(), promoted_by: actorOf(caller), promoted_order: order },
        )
      })
      return decided(caller, id)
    },
  }
}
