/**
 * Flow control's concurrency limit: at most `limit` runs per key in execution. A run beyond it is
 * skipped (`skip`), held until a run of its key ends (`queue`), or held while it cancels the oldest
 * runs of its key (`cancel-in-progress`). Held runs start best ranked first (flow-releases.ts).
 */
import type { FlowControl } from '../../core/domain/flow-control.ts'
import type { RecordedEvent } from '../../core/domain-events.ts'
import type { Ids } from '../../core/ports/ids.ts'
import type { SqlExecutor } from '../../core/ports/store.ts'
import { flowRuns, type HeldRun } from '../../core/store/flow-control.ts'
import { runInbox } from '../../core/store/run-side.ts'
import { CANCELLED_OWNER } from '../control.ts'
import { endRun } from '../engine/run-end.ts'
import type { EventRecorder } from '../event-recorder.ts'
import type { FlowAdmission } from './flow-control.ts'

type Concurrency = NonNullable<FlowControl['concurrency']>

/** With room (and nobody held before it) the run counts against its key; else as `onLimit` says. */
export async function concurrencyOf(
  tx: SqlExecutor,
  workflowId: string,
  rule: Concurrency,
  key: string,
): Promise<FlowAdmission> {
  const { running, held } = await flowRuns.counts(tx, workflowId, key)
  if (running < rule.limit && held === 0) return { key }
  const onLimit = rule.onLimit ?? 'queue'
  if (onLimit === 'skip') return { refused: 'concurrency_limit' }
  const waitingFor = JSON.stringify({ reason: 'concurrency', key, limit: rule.limit })
  return { key, held: waitingFor, ...(onLimit === 'cancel-in-progress' ? { supersede: rule.limit } : {}) }
}

/** Starts the first held runs of a key (`queue`, best ranked first), as many as it has room for. */
export async function releaseConcurrency(
  tx: SqlExecutor,
  workflowId: string,
  queue: readonly HeldRun[],
  at: number,
): Promise<{ ids: string[]; due?: number }> {
  const { running } = await flowRuns.counts(tx, workflowId, queue[0].flow_key)
  const limit = (JSON.parse(queue[0].waiting_for) as { limit?: number }).limit ?? 1
  const ids: string[] = []
  for (const run of queue.slice(0, Math.max(0, limit - running))) {
    if ((await flowRuns.release(tx, run.id, at)) > 0) ids.push(run.id)
  }
  return { ids }
}

/** Why a run superseded by a newer one of its key ends (concurrency `cancel-in-progress`). */
const SUPERSEDED = 'superseded by a newer run of its concurrency key'

/**
 * `cancel-in-progress`: the newest run of a key wins. Its held runs end as cancelled here; the
 * oldest running ones are asked to cancel (a CANCEL in their inbox; `wake` them after the commit)
 * until the newest, held until then, has room. Answers the events recorded and the runs to wake.
 */
export async function supersede(
  tx: SqlExecutor,
  deps: { recorder: EventRecorder; ids: Ids },
  workflowId: string,
  key: string,
  limit: number,
  newest: string,
  now: number,
): Promise<{ events: RecordedEvent[]; wake: string[] }> {
  const events: RecordedEvent[] = []
  for (const run of await flowRuns.heldOf(tx, workflowId)) {
    if (run.flow_key !== key || run.id === newest) continue
    const end = { status: 'cancelled', at: now, reason: SUPERSEDED, owner: CANCELLED_OWNER } as const
    events.push(...(await endRun(tx, deps.recorder, run.id, end)))
  }
  const running = await flowRuns.runningOf(tx, workflowId, key)
  const wake = running.slice(0, Math.max(0, running.length - limit + 1)).map((r) => r.id)
  for (const runId of wake) {
    const event = JSON.stringify({ type: 'CANCEL', reason: SUPERSEDED })
    await runInbox.add(tx, { id: deps.ids.next('evt'), runId, event, at: now })
  }
  return { events, wake }
}
