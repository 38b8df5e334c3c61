/**
 * A workflow's lifecycle: publishing the draft (the publish guards may refuse it), pausing and
 * resuming the live version, refilling its remaining runs, archiving and unarchiving, and handing
 * it to another owner. Each is one `mutate`: recorded as a workflow event, published after commit.
 */
import type { Workflow, WorkflowContent } from '../domain/workflow.ts'
import { badRequest, conflict } from '../errors.ts'
import { versions, type WorkflowRow, workflows } from '../store/workflows.ts'
import { actorOf, type Principal } from './auth.ts'
import { requireLive, requireNotArchived, type WorkflowContext } from './workflow-context.ts'
import { subscribedLifecycle } from './workflow-subscriptions.ts'

/** The runs left after publishing `content`: kept while maxRuns stays what the live version had. */
function remainingRuns(w: WorkflowRow, content: WorkflowContent, previous: WorkflowContent | null): number | null {
  if (content.maxRuns === null) return null
  return previous?.maxRuns === content.maxRuns && w.remain_runs !== null ? w.remain_runs : content.maxRuns
}

/** The lifecycle operations of the workflow service. */
export function lifecycleOperations(ctx: WorkflowContext) {
  const { deps, loadVersion, mutate } = ctx
  const { clock } = deps

  return subscribedLifecycle(ctx, {
    publish(caller: Principal, id: string): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        requireNotArchived(w)
        if (w.draft_version === null) throw conflict('there is no draft to publish')
        const draft = await loadVersion(tx, w, w.draft_version)
        const content = JSON.parse(draft.content) as WorkflowContent
        const type = ctx.check(content.definition)
        const guardErrors = await ctx.guardProblems(content, w.organization_id, tx)
        if (guardErrors.length > 0) throw badRequest('the workflow cannot be published', guardErrors)
        const previous =
          w.live_version !== null
            ? (JSON.parse((await loadVersion(tx, w, w.live_version)).content) as WorkflowContent)
            : null
        const remainRuns = remainingRuns(w, content, previous)
        const at = clock.now()
        await versions.markPublished(tx, w.id, draft.version, at)
        await workflows.update(tx, w.id, {
          live_version: draft.version,
          draft_version: null,
          live_status: remainRuns === 0 ? 'paused' : 'active',
          paused_reason: remainRuns === 0 ? 'max_runs_exhausted' : null,
          remain_runs: remainRuns,
          consecutive_failures: 0,
          name: content.name,
          type,
          updated_at: at,
          updated_by: actorOf(caller),
        })
        return { event: 'workflow.published', data: { version: draft.version, previousVersion: w.live_version } }
      })
    },

    pause(caller: Principal, id: string): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        requireLive(w)
        if (w.live_status === 'paused') return null
        await workflows.update(tx, w.id, {
          live_status: 'paused',
          paused_reason: null,
          updated_at: clock.now(),
          updated_by: actorOf(caller),
        })
        return { event: 'workflow.paused', data: { version: w.live_version, reason: null } }
      })
    },

    resume(caller: Principal, id: string): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        requireLive(w)
        if (w.live_status === 'active') return null
        if (w.remain_runs === 0) throw conflict('no runs remain; refill the workflow to resume it')
        // Paused because the chat platform revoked its connector: its connectors are checked again first.
        if (w.paused_reason === 'invalid_chat') {
          const live = JSON.parse((await loadVersion(tx, w, w.live_version!)).content) as WorkflowContent
          const guardErrors = await ctx.guardProblems(live, w.organization_id, tx)
          if (guardErrors.length > 0)
            throw badRequest('the workflow cannot resume: its connectors do not check out', guardErrors)
        }
        await workflows.update(tx, w.id, {
          live_status: 'active',
          paused_reason: null,
          consecutive_failures: 0,
          updated_at: clock.now(),
          updated_by: actorOf(caller),
        })
        return { event: 'workflow.resumed', data: { version: w.live_version } }
      })
    },

    refill(caller: Principal, id: string, remainRuns: number): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        requireNotArchived(w)
        const reactivate = w.live_status === 'paused' && w.paused_reason === 'max_runs_exhausted'
        await workflows.update(tx, w.id, {
          remain_runs: remainRuns,
          ...(reactivate ? { live_status: 'active' as const, paused_reason: null } : {}),
          updated_at: clock.now(),
          updated_by: actorOf(caller),
        })
        return { event: 'workflow.refilled', data: { remainRuns, resumed: reactivate } }
      })
    },

    archive(caller: Principal, id: string): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        if (w.archived_at !== null) return null
        await workflows.update(tx, w.id, {
          archived_at: clock.now(),
          updated_at: clock.now(),
          updated_by: actorOf(caller),
        })
        return { event: 'workflow.archived' }
      })
    },

    unarchive(caller: Principal, id: string): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        if (w.archived_at === null) return null
        await workflows.update(tx, w.id, { archived_at: null, updated_at: clock.now(), updated_by: actorOf(caller) })
        return { event: 'workflow.unarchived' }
      })
    },

    async setOwner(caller: Principal, id: string, ownerUserId: string): Promise<{ id: string; ownerUserId: string }> {
      await ctx.loadRow(deps.store, caller, id)
      await ctx.ensureMember(caller.organizationId, ownerUserId, '/ownerUserId')
      await mutate(caller, id, async (tx, w) => {
        if (w.owner_user_id === ownerUserId) return null
        await workflows.update(tx, w.id, {
          owner_user_id: ownerUserId,
          updated_at: clock.now(),
          updated_by: actorOf(caller),
        })
        return { event: 'workflow.owner_changed', data: { ownerUserId, previousOwnerUserId: w.owner_user_id } }
      })
      return { id, ownerUserId }
    },
  })
}
