/**
 * What a run stream may follow: a run of the caller's organization (or a run id of none yet: a
 * client may choose its run's id and follow it before it starts), or a workflow's runs. A stream's
 * permission depends on its detail (`run:stream`, or `execution:stream` with node inputs and
 * results), so these check it themselves.
 */
import { notFound } from '../errors.ts'
import type { Store } from '../ports/store.ts'
import { runs } from '../store/runs.ts'
import { workflows } from '../store/workflows.ts'
import type { Principal } from './auth.ts'
import { authorize } from './operations.ts'

const streamPermission = (detail: boolean) => (detail ? 'execution:stream' : 'run:stream')

/** The stream operations of the run service. */
export function streamOperations(store: Store) {
  return {
    /** Whether a run stream may follow `runId`, and whether the run has started; another organization's run is a 404. */
    async followRun(caller: Principal, runId: string, detail: boolean): Promise<{ started: boolean }> {
      authorize(caller, [streamPermission(detail)])
      const owner = await runs.ownerOf(store, runId)
      if (owner && owner.organization_id !== caller.organizationId) throw notFound('run')
      return { started: owner !== undefined }
    },

    /** Whether the caller's organization has the run a stream follows (one that never starts ends the stream). */
    async runStarted(caller: Principal, runId: string, detail: boolean): Promise<boolean> {
      authorize(caller, [streamPermission(detail)])
      return runs.existsIn(store, caller.organizationId, runId)
    },

    /** Following a workflow's runs: 404 unless the caller's organization has the workflow. */
    async followWorkflowRuns(caller: Principal, workflowId: string): Promise<void> {
      if (!(await workflows.exists(store, caller.organizationId, workflowId))) throw notFound('workflow')
    },
  }
}
