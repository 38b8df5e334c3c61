/**
 * Steering a run: cancelling one that has not finished, retrying one that failed or was
 * cancelled, and resuming a node that waits.
 */
import type { Run } from '../domain/run.ts'
import { isTerminal } from '../domain/run-lifecycle.ts'
import { conflict, notFound, unauthorized } from '../errors.ts'
import { timingSafeEqual } from '../security/hash.ts'
import { runs } from '../store/runs.ts'
import { workflows } from '../store/workflows.ts'
import type { Principal } from './auth.ts'
import { authorize } from './operations.ts'
import { loadRun, runOf } from './run-view.ts'
import type { RunServiceDeps } from './runs.ts'

/** The steering operations of the run service. */
export function steeringOperations(deps: RunServiceDeps) {
  const { store } = deps
  const load = (caller: Principal, runId: string) => loadRun(store, caller, runId)
  const toRun = (row: Parameters<typeof runOf>[1], summary: boolean) => runOf(deps, row, summary)

  return {
    async cancel(caller: Principal, runId: string): Promise<Run> {
      const row = await load(caller, runId)
      if (isTerminal(row.status)) throw conflict(`the run has already finished (${row.status})`)
      await deps.control.cancel(caller.organizationId, runId)
      return toRun(await load(caller, runId), true)
    },

    async retry(caller: Principal, runId: string): Promise<{ runId: string }> {
      const row = await load(caller, runId)
      if (row.status !== 'failure' && row.status !== 'cancelled')
        throw conflict(`only failed or cancelled runs can be retried; this one is ${row.status}`)
      return deps.dispatcher.retry(caller.organizationId, runId)
    },

    /** Resumes a waiting node; authorized by a key of the run's organization or by the workflow's trigger secret. */
    async resume(
      auth: { principal?: Principal; secret?: string },
      runId: string,
      nodeId: string,
      data: unknown,
    ): Promise<Run> {
      if (auth.principal) authorize(auth.principal, ['workflow:execute'])
      const row = auth.principal ? await load(auth.principal, runId) : await runs.byIdAnyOrg(store, runId)
      if (!row) throw notFound('run')
      if (!auth.principal) {
        const w = await workflows.byId(store, row.organization_id, row.workflow_id)
        if (!w || !auth.secret || !timingSafeEqual(w.trigger_secret, auth.secret))
          throw unauthorized('a valid API key or the workflow secret is required')
      }
      if (row.status !== 'waiting' && row.status !== 'running') throw conflict(`the run is ${row.status}, not waiting`)
      await deps.control.resume(row.organization_id, runId, nodeId, data)
      return toRun((await runs.byIdAnyOrg(store, runId))!, true)
    },
  }
}
