/**
 * Flow control's debounce: a run starts only once no new event came for its key for `periodMs`
 * (and at the latest `maxWaitMs` after the first), with the latest event's data. The first event
 * of a key admits one run, held (status waiting); each later one replaces its trigger data and
 * moves its start, and admits nothing. Every such event is answered `debounced` with that run's id.
 */
import type { FlowControl } from '../../core/domain/flow-control.ts'
import type { DispatchRequest } from '../../core/ports/engine.ts'
import type { SqlExecutor } from '../../core/ports/store.ts'
import { flowDebounce, flowRuns, type HeldRun } from '../../core/store/flow-control.ts'
import type { FlowAdmission } from './flow-control.ts'

type Debounce = NonNullable<FlowControl['debounce']>

/** What a pending run waits for: the time it starts (`due`), and the latest it may (`until`, null: no bound). */
interface DebounceWait {
  reason: 'debounce'
  key: string
  due: number
  until: number | null
}

/** The first event of a key holds its run until the period passes; a later one is absorbed by it. */
export async function debounceOf(
  tx: SqlExecutor,
  req: DispatchRequest,
  rule: Debounce,
  key: string,
  now: number,
): Promise<FlowAdmission> {
  const pending = await flowDebounce.pendingOf(tx, req.workflowId, key)
  if (pending) {
    const wait = JSON.parse(pending.waiting_for) as DebounceWait
    const due = wait.until === null ? now + rule.periodMs : Math.min(now + rule.periodMs, wait.until)
    await flowDebounce.absorb(tx, pending.id, JSON.stringify(req.event), JSON.stringify({ ...wait, due }), now)
    return { absorbedBy: pending.id }
  }
  const until = rule.maxWaitMs === undefined ? null : now + rule.maxWaitMs
  const wait: DebounceWait = { reason: 'debounce', key, due: now + rule.periodMs, until }
  return { key, held: JSON.stringify(wait), debounced: true }
}

/** Starts a key's pending run once its time came; else answers when it comes. */
export async function releaseDebounce(
  tx: SqlExecutor,
  _workflowId: string,
  _key: string,
  queue: readonly HeldRun[],
  at: number,
): Promise<{ ids: string[]; due?: number }> {
  const ids: string[] = []
  let due: number | undefined
  for (const run of queue) {
    const wait = JSON.parse(run.waiting_for) as DebounceWait
    if (wait.due > at) due = Math.min(due ?? wait.due, wait.due)
    else if ((await flowRuns.release(tx, run.id, at)) > 0) ids.push(run.id)
  }
  return { ids, due }
}
