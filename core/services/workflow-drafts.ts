/**
 * Editing workflows: creating one (its first version is a draft), content changes (they go to the
 * draft, creating one from the live version when needed; identical content changes nothing),
 * rolling back to an earlier version, discarding the draft, and the settings edited in place
 * (visibility on every version, the UI metadata on the display version).
 */
import {
  type CreateWorkflowBody,
  defaultContent,
  normalizeContent,
  type UpdateWorkflowBody,
  type Visibility,
  type Workflow,
  type WorkflowContent,
} from '../domain/workflow.ts'
import { conflict, notFound } from '../errors.ts'
import { publishEvents } from '../events.ts'
import { randomToken } from '../ids.ts'
import { canonicalJson } from '../json.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { displayVersion, versions, type WorkflowRow, workflows } from '../store/workflows.ts'
import { actorOf, type Principal } from './auth.ts'
import { requireNotArchived, stripUndefined, type WorkflowContext } from './workflow-context.ts'

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
export function draftOperations(ctx: WorkflowContext) {
  const { deps, loadVersion, mutate } = ctx
  const { store, clock } = deps

  function patchInPlace(
    caller: Principal,
    id: string,
    edit: (c: WorkflowContent) => WorkflowContent,
    event: string,
    data: Record<string, unknown>,
    displayOnly = false,
  ) {
    return mutate(caller, id, async (tx, w) => {
      requireNotArchived(w)
      const targets = displayOnly
        ? [displayVersion(w)]
        : [...new Set([w.draft_version, w.live_version, displayVersion(w)].filter((v): v is number => v !== null))]
      let changed = false
      for (const version of targets) {
        const v = await loadVersion(tx, w, version)
        const current = JSON.parse(v.content) as WorkflowContent
        const next = edit(current)
        if (canonicalJson(next) === canonicalJson(current)) continue
        await versions.updateContent(tx, w.id, version, JSON.stringify(next), v.type, clock.now(), actorOf(caller))
        changed = true
      }
      return changed ? { event, data } : null
    })
  }

  return {
    /** `alongside` writes more in the same transaction (a fork's prop values, its app). */
    async create(
      caller: Principal,
      body: CreateWorkflowBody,
      alongside?: (tx: SqlExecutor, workflowId: string) => Promise<void>,
    ): Promise<Workflow> {
      const type = await ctx.checkForSave(body.definition)
      const { ownerUserId, ...fields } = body
      const content = normalizeContent({ ...defaultContent(body.definition), ...stripUndefined(fields) })
      if (ownerUserId) await ctx.ensureMember(caller.organizationId, ownerUserId, '/ownerUserId')
      await ctx.checkAutoSwap(store, caller.organizationId, content)
      const id = deps.ids.next('wf')
      const at = clock.now()
      const by = actorOf(caller)
      const recorded = await store.write(async (tx) => {
        await workflows.insert(tx, {
          id,
          organization_id: caller.organizationId,
          owner_user_id: ownerUserId ?? caller.userId,
          trigger_secret: randomToken(32),
          name: content.name,
          type,
          latest_version: 1,
          draft_version: 1,
          live_version: null,
          live_status: null,
          paused_reason: null,
          archived_at: null,
          remain_runs: null,
          last_triggered_at: null,
          consecutive_failures: 0,
          created_at: at,
          created_by: by,
          updated_at: at,
          updated_by: by,
        })
        await versions.insert(tx, {
          workflow_id: id,
          version: 1,
          organization_id: caller.organizationId,
          content: JSON.stringify(content),
          type,
          version_created_by: by,
          created_at: at,
          updated_at: at,
          updated_by: by,
          published_at: null,
        })
        await alongside?.(tx, id)
        return ctx.record(tx, [
          {
            organizationId: caller.organizationId,
            workflowId: id,
            runId: null,
            seq: null,
            nodeId: null,
            type: 'workflow.created',
            data: { workflowId: id, by, version: 1 },
            at,
          },
        ])
      })
      publishEvents(deps.bus, recorded)
      return ctx.display(store, (await workflows.byId(store, caller.organizationId, id))!)
    },

    /** A content change: updates the draft, or creates one from the live version; identical content is a no-op. */
    async update(caller: Principal, id: string, body: UpdateWorkflowBody): Promise<Workflow> {
      const type = body.definition ? await ctx.checkForSave(body.definition) : null
      return mutate(caller, id, async (tx, w) => {
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
      })
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

    /** Visibility is a setting, not content: it applies to the draft and the live version at once. */
    setVisibility(caller: Principal, id: string, visibility: Visibility): Promise<Workflow> {
      return patchInPlace(caller, id, (c) => ({ ...c, visibility }), 'workflow.visibility_changed', { visibility })
    },

    /** Comments, node positions and sticky notes: edited on the display row without a new version. */
    patchUiMetadata(caller: Principal, id: string, patch: Partial<WorkflowContent['uiMetadata']>): Promise<Workflow> {
      return patchInPlace(
        caller,
        id,
        (c) => ({ ...c, uiMetadata: { ...c.uiMetadata, ...stripUndefined(patch) } }),
        'workflow.ui_metadata_changed',
        {},
        true,
      )
    },
  }
}
