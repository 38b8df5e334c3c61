/**
 * The one write that ends a run outside its actor: a run whose definition cannot execute ends as
 * failed (the executor's failUnstartable), a cancel nobody took ends as cancelled (run control).
 * Only a run that has not ended changes: its row takes the terminal status, its inbox, waits and
 * timers go, and the terminal event of the status (core/domain/run-lifecycle.ts) is recorded in
 * the same transaction. A run's actor ends it through its journal instead, with the snapshot
 * that says how.
 */
import { END_EVENT, isTerminal } from '../../core/domain/run-lifecycle.ts'
import type { RecordedEvent } from '../../core/domain-events.ts'
import type { SqlExecutor } from '../../core/ports/store.ts'
import { clearWaiting, runInbox } from '../../core/store/run-side.ts'
import { runs } from '../../core/store/runs.ts'
import type { EventRecorder } from '../event-recorder.ts'

/** How a run ends outside its actor: failed with an error, or cancelled with a reason and the owner it keeps. */
export type RunEnd =
  | { status: 'failure'; at: number; error: { message: string; code: string } }
  | { status: 'cancelled'; at: number; reason: string; owner: string }

/**
 * Ends `runId` as `end` says, unless it has ended or `still` (read in the same transaction) says
 * no; answers the recorded events, to publish after the commit (none when nothing changed).
 */
export async function endRun(
  tx: SqlExecutor,
  recorder: EventRecorder,
  runId: string,
  end: RunEnd,
  still?: (tx: SqlExecutor) => Promise<boolean>,
): Promise<RecordedEvent[]> {
  const row = await runs.ownerOf(tx, runId)
  if (!row || isTerminal(row.status)) return []
  if (still && !(await still(tx))) return []
  const seq = Number(row.last_seq) + 1
  const failed = end.status === 'failure'
  const changed = await runs.end(tx, {
    runId,
    status: end.status,
    at: end.at,
    seq,
    error: failed ? JSON.stringify(end.error) : null,
    owner: failed ? null : end.owner,
  })
  if (changed === 0) return []
  await runInbox.clear(tx, runId)
  await clearWaiting(tx, runId)
  const data = failed ? { error: end.error } : { reason: end.reason }
  return recorder.record(tx, [
    {
      organizationId: row.organization_id,
      workflowId: row.workflow_id,
      runId,
      seq,
      nodeId: null,
      type: END_EVENT[end.status],
      data: { runId, workflowId: row.workflow_id, ...data },
      at: end.at,
    },
  ])
}
