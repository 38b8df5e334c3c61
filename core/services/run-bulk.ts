/**
 * Bulk actions on runs: cancel the unfinished runs that match a filter, or retry the failed and
 * cancelled ones, oldest first and at most `expected`: the count the caller was shown and
 * confirmed. Runs that finish or start meanwhile are left alone; the answer says how many were
 * acted on.
 */
import type { RunStatus } from '../domain/run.ts'
import { AppError, badRequest, notFound } from '../errors.ts'
import type { Dispatcher, RunControl } from '../ports/engine.ts'
import type { Store } from '../ports/store.ts'
import { type RunFilter, runs } from '../store/runs.ts'
import { workflows } from '../store/workflows.ts'
import type { Principal } from './auth.ts'

/** Which runs a bulk action takes: a run filter with at most one status. */
export type BulkFilter = Omit<RunFilter, 'status'> & { status?: RunStatus }

/** The bulk operations of the run service. */
export function bulkOperations(deps: { store: Store; control: RunControl; dispatcher: Dispatcher }) {
  const { store } = deps

  async function bulk(caller: Principal, action: 'cancel' | 'retry', filter: BulkFilter, expected: number) {
    if (filter.workflowId && !(await workflows.byId(store, caller.organizationId, filter.workflowId)))
      throw notFound('workflow')
    const allowed: readonly RunStatus[] = action === 'cancel' ? ['running', 'waiting'] : ['failure', 'cancelled']
    if (filter.status && !allowed.includes(filter.status)) {
      throw badRequest(`only ${allowed.join(' and ')} runs can be ${action === 'cancel' ? 'cancelled' : 'retried'}`, [
        { path: '/status', message: `must be one of ${allowed.join(', ')}` },
      ])
    }
    const statuses = filter.status ? [filter.status] : allowed
    const ids = await runs.idsMatching(
      store,
      caller.organizationId,
      { ...filter, status: undefined, statuses, notRetried: action === 'retry' },
      expected,
    )
    let done = 0
    const started: string[] = []
    let next = 0
    // A few at a time: a cancel waits for its run to stop.
    await Promise.all(
      Array.from({ length: Math.min(16, ids.length) }, async () => {
        while (next < ids.length) {
          const { id } = ids[next++]
          try {
            if (action === 'cancel') await deps.control.cancel(caller.organizationId, id)
            else started.push((await deps.dispatcher.retry(caller.organizationId, id)).runId)
            done++
          } catch (error) {
            // Finished, or pruned, meanwhile: not this action's to count.
            if (!(error instanceof AppError) || (error.status !== 409 && error.status !== 404)) throw error
          }
        }
      }),
    )
    return action === 'cancel' ? { cancelled: done } : { retried: done, runIds: started }
  }

  return {
    bulkCancel: (caller: Principal, filter: BulkFilter, expected: number) => bulk(caller, 'cancel', filter, expected),
    bulkRetry: (caller: Principal, filter: BulkFilter, expected: number) => bulk(caller, 'retry', filter, expected),
  }
}
