/**
 * Trigger subscriptions around a change that makes a version live (publish, resume, unarchive):
 * the triggers' `onEnable` calls their platforms before the change's transaction, so that a
 * refusal (400, or 502 when the platform cannot be reached) leaves nothing live; a change that
 * then fails hands what was enabled to `onDisable`. Stopping (pause, archive) needs nothing
 * here: the transaction's reconciliation marks the subscriptions for a background `onDisable`.
 */
import type { Workflow, WorkflowContent } from '../domain/workflow.ts'
import type { WorkflowRow } from '../store/workflows.ts'
import type { Principal } from './auth.ts'
import type { WorkflowContext } from './workflow-context.ts'

/** The version a change would make live, or null when it would make none (the change then refuses or does nothing). */
export type GoingLive = (w: WorkflowRow) => number | null

export const draftGoingLive: GoingLive = (w) => (w.archived_at === null ? w.draft_version : null)

export const resumedGoingLive: GoingLive = (w) =>
  w.archived_at === null && w.live_status === 'paused' && w.remain_runs !== 0 ? w.live_version : null

export const unarchivedGoingLive: GoingLive = (w) =>
  w.archived_at !== null && w.live_status === 'active' ? w.live_version : null

type LiveChange = (caller: Principal, id: string) => Promise<Workflow>

/**
 * The lifecycle operations with `publish`, `resume` and `unarchive` enabling the subscriptions of
 * the version they make live first, and handing them to `onDisable` when the change then fails.
 */
export function subscribedLifecycle<T extends { publish: LiveChange; resume: LiveChange; unarchive: LiveChange }>(
  ctx: WorkflowContext,
  operations: T,
): T {
  const enabler = ctx.deps.subscriptions
  if (!enabler) return operations
  const around =
    (going: GoingLive, change: LiveChange): LiveChange =>
    async (caller, id) => {
      const w = await ctx.loadRow(ctx.deps.store, caller, id)
      const version = going(w)
      if (version === null) return change(caller, id)
      const content = JSON.parse((await ctx.loadVersion(ctx.deps.store, w, version)).content) as WorkflowContent
      // A definition that does not check out, or that a publish guard refuses (a missing connector),
      // is refused by the change itself, before any platform hears of it.
      ctx.check(content.definition)
      const problems = await ctx.guardProblems(content, w.organization_id, ctx.deps.store)
      if (problems.length > 0) return change(caller, id)
      const enabled = await enabler.enable(w.organization_id, w.id, content.definition)
      try {
        return await change(caller, id)
      } catch (error) {
        await enabled.undo()
        throw error
      }
    }
  return {
    ...operations,
    publish: around(draftGoingLive, operations.publish),
    resume: around(resumedGoingLive, operations.resume),
    unarchive: around(unarchivedGoingLive, operations.unarchive),
  }
}
