/**
 * Editing workflows: creating one (its first version is a draft), content changes (they go to the
 * draft, creating one from the live version when needed; identical content changes nothing),
 * rolling back to an earlier version, discarding the draft, and the settings edited in place
 * (visibility on every version, the UI metadata on the display version).
 */
import { checkFlowControl } from '../domain/flow-control.ts'
import { normalizeContent, type UpdateWorkflowBody, type Workflow, type WorkflowContent } from '../domain/workflow.ts'
import { conflict, notFound } from '../errors.ts'
import { canonicalJson } from '../json.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { displayVersion, versions, type WorkflowRow, workflows } from '../store/workflows.ts'
import { actorOf, type Principal } from './auth.ts'
import { requireNotArchived, stripUndefined, type WorkflowContext } from './workflow-context.ts'
import { createWorkflow } from './workflow-creation.ts'
import type { WorkflowService, WriteCondition } from './workflows.ts'

/** A new version `version` of `w`, made the draft. */
async function insertDraft(
  tx: SqlExecutor,
  w: WorkflowRow,
  v: { version: number; content: string; type: string; name: string; at: number; by: string },
) {
  await versions.insert(tx, {
    workflow_id: w.id,
    version: v.version,
    organization_id: w.organization_id,
    content: v.content,
    type: v.type,
    version_created_by: v.by,
    created_at: v.at,
    updated_at: v.at,
    updated_by: v.by,
    published_at: null,
  })
  await workflows.update(tx, w.id, {
    name: v.name,
    type: v.type,
    latest_version: v.version,
    draft_version: v.version,
    updated_at: v.at,
    updated_by: v.by,
  })
}

/** The draft operations of the workflow service. */
export function draftOperations(
  ctx: WorkflowContext,
): Pick<WorkflowService, 'create' | 'update' | 'rollback' | 'discardDraft'> {
  const { deps, loadVersion, mutate } = ctx
  const { clock } = deps

  return {
    create: (caller, body, alongside) => createWorkflow(ctx, caller, body, alongside),

    /** A content change: updates the draft, or creates one from the live version; identical content is a no-op. */
    async update(
      caller: Principal,
      id: string,
      body: UpdateWorkflowBody,
      condition: WriteCondition = {},
    ): Promise<Workflow> {
      if (body.definition) body = { ...body, definition: deps.checker.pinVersions(body.definition) }
      const type = body.definition ? await ctx.checkForSave(body.definition) : null
      checkFlowControl(body.flowControl)
      return mutate(
        caller,
        id,
        async (tx, w) => {
          requireNotArchived(w)
          const base = await loadVersion(tx, w, displayVersion(w))
          const current = JSON.parse(base.content) as WorkflowContent
          const next = normalizeContent({ ...current, ...stripUndefined(body) })
          if (canonicalJson(next) === canonicalJson(current)) return null
          if (body.fundAutoSwapConfig !== undefined) await ctx.checkAutoSwap(tx, w.organization_id, next)
          const at = clock.now()
          const by = actorOf(caller)
          const nextType = type ?? base.type
          if (w.draft_version !== null) {
            await versions.updateContent(tx, w.id, w.draft_version, JSON.stringify(next), nextType, at, by)
            await workflows.update(tx, w.id, { name: next.name, type: nextType, updated_at: at, updated_by: by })
            return { event: 'workflow.updated', data: { version: w.draft_version } }
          }
          const version = w.latest_version + 1
          await insertDraft(tx, w, { version, content: JSON.stringify(next), type: nextType, name: next.name, at, by })
          return { event: 'workflow.updated', data: { version, draftCreated: true } }
        },
        condition.ifMatch,
      )
    },

    /** Copies an earlier version into a new draft (replacing an unpublished draft). */
    rollback(caller: Principal, id: string, version: number): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        requireNotArchived(w)
        const source = await loadVersion(tx, w, version)
        const content = JSON.parse(source.content) as WorkflowContent
        const type = ctx.check(content.definition)
        if (w.draft_version !== null) await versions.remove(tx, w.id, w.draft_version)
        const next = w.latest_version + 1
        await insertDraft(tx, w, {
          version: next,
          content: source.content,
          type,
          name: content.name,
          at: clock.now(),
          by: actorOf(caller),
        })
        return { event: 'workflow.updated', data: { version: next, rolledBackTo: version } }
      })
    },

    discardDraft(caller: Principal, id: string): Promise<Workflow> {
      return mutate(caller, id, async (tx, w) => {
        if (w.draft_version === null) throw notFound('draft of workflow')
        if (w.live_version === null) throw conflict('the draft is the only version; archive the workflow instead')
        await versions.remove(tx, w.id, w.draft_version)
        const live = JSON.parse((await loadVersion(tx, w, w.live_version)).content) as WorkflowContent
        await workflows.update(tx, w.id, {
          draft_version: null,
          name: live.name,
          updated_at: clock.now(),
          updated_by: actorOf(caller),
        })
        return { event: 'workflow.updated', data: { draftDiscarded: w.draft_version } }
      })
    },
  }
}
