/**
 * The settings of a workflow edited in place, without a new version: visibility on every
 * version, the UI metadata on the display version.
 */
import type { Visibility, Workflow, WorkflowContent } from '../domain/workflow.ts'
import { canonicalJson } from '../json.ts'
import { displayVersion, versions } from '../store/workflows.ts'
import { actorOf, type Principal } from './auth.ts'
import type { WriteCondition } from './workflows.ts'
import { requireNotArchived, stripUndefined, type WorkflowContext } from './workflow-context.ts'

/** Applies `edit` to the content of the draft, live and display versions (only the display one when `displayOnly`). */
function patchInPlace(
  ctx: WorkflowContext,
  caller: Principal,
  id: string,
  edit: (c: WorkflowContent) => WorkflowContent,
  event: string,
  data: Record<string, unknown>,
  displayOnly = false,
  ifMatch?: string | null,
) {
  const { loadVersion, mutate } = ctx
  return mutate(
    caller,
    id,
    async (tx, w) => {
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
        await versions.updateContent(
          tx,
          w.id,
          version,
          JSON.stringify(next),
          v.type,
          ctx.deps.clock.now(),
          actorOf(caller),
        )
        changed = true
      }
      return changed ? { event, data } : null
    },
    ifMatch,
  )
}

/** The settings operations of the workflow service. */
export function settingsOperations(ctx: WorkflowContext) {
  return {
    /** Visibility is a setting, not content: it applies to the draft and the live version at once. */
    setVisibility(caller: Principal, id: string, visibility: Visibility): Promise<Workflow> {
      return patchInPlace(ctx, caller, id, (c) => ({ ...c, visibility }), 'workflow.visibility_changed', { visibility })
    },

    /** Comments, node positions and sticky notes: edited on the display row without a new version. */
    patchUiMetadata(
      caller: Principal,
      id: string,
      patch: Partial<WorkflowContent['uiMetadata']>,
      condition: WriteCondition = {},
    ): Promise<Workflow> {
      return patchInPlace(
        ctx,
        caller,
        id,
        (c) => ({ ...c, uiMetadata: { ...c.uiMetadata, ...stripUndefined(patch) } }),
        'workflow.ui_metadata_changed',
        {},
        true,
        condition.ifMatch,
      )
    },
  }
}
