/** Creating a workflow: its row, its first version (a draft), and the `workflow.created` event. */
import { checkFlowControl } from '../domain/flow-control.ts'
import { type CreateWorkflowBody, defaultContent, normalizeContent, type Workflow } from '../domain/workflow.ts'
import { publishEvents } from '../domain-events.ts'
import { randomToken } from '../ids.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { versions, workflows } from '../store/workflows.ts'
import { actorOf, type Principal } from './auth.ts'
import { stripUndefined, type WorkflowContext } from './workflow-context.ts'
import { presentedOne } from './workflow-presentation.ts'

/** A new workflow, its first version a draft. `alongside` writes more in the same transaction (a fork's prop values, its app). */
export async function createWorkflow(
  ctx: WorkflowContext,
  caller: Principal,
  body: CreateWorkflowBody,
  alongside?: (tx: SqlExecutor, workflowId: string) => Promise<void>,
): Promise<Workflow> {
  const { deps } = ctx
  const { store, clock } = deps
  body = { ...body, definition: deps.checker.pinVersions(body.definition) }
  const type = await ctx.checkForSave(body.definition)
  checkFlowControl(body.flowControl)
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
  return presentedOne(store, await ctx.display(store, (await workflows.byId(store, caller.organizationId, id))!))
}
