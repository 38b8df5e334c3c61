/**
 * Flow control's debounce: a run starts only once no new event came for its key for `periodMs`
 * (and at the latest `maxWaitMs` after the first), with the latest event's data. The first event
 * of a key admits one run, held (status waiting); each later one replaces its trigger data (and
 * the keys of the rules after debounce, which that data gives) and moves its start, and admits
 * nothing. Every such event is answered `debounced` with that run's id. When its time comes the
 * run goes on to a throttle or concurrency key after it (flow-stages.ts), or starts.
 */
import type { FlowControl } from '../../core/domain/flow-control.ts'
import type { DispatchRequest } from '../../core/ports/engine.ts'
import type { SqlExecutor } from '../../core/ports/store.ts'
import { flowDebounce, type HeldRun } from '../../core/store/flow-control.ts'
import type { FlowAdmission } from './flow-control.ts'
import { passOn, type Stage, stageKey, waitText, withPriority } from './flow-stages.ts'

type Debounce = NonNullable<FlowControl['debounce']>

/** What a pending run waits for: the time it starts (`due`), and the latest it may (`until`, null: no bound). */
interface DebounceWait {
  reason: 'debounce'
  key: string
  due: number
  until: number | null
}

/** A pending run's wait as stored: with the rules after debounce and its priority, which each event gives anew. */
type StoredWait = DebounceWait & { then?: Stage[]; priority?: number }

/**
 * The first event of a key holds its run until the period passes; a later one is absorbed by it.
 * `then`: the rules after debounce, with the keys this event gives; `priority`: the one it gives.
 */
export async function debounceOf(
  tx: SqlExecutor,
  req: DispatchRequest,
  rule: Debounce,
  key: string,
  then: readonly Stage[],
  now: number,
  priority: number | undefined,
): Promise<FlowAdmission> {
  const stored = stageKey('debounce', key)
  const pending = await flowDebounce.pendingOf(tx, req.workflowId, stored)
  if (pending) {
    const { then: _, priority: __, ...wait } = JSON.parse(pending.waiting_for) as StoredWait
    const due = wait.until === null ? now + rule.periodMs : Math.min(now + rule.periodMs, wait.until)
    // The latest event's data gives the run its priority too.
    const waitingFor = withPriority(waitText({ ...wait, due }, then), priority)
    await flowDebounce.absorb(tx, pending.id, JSON.stringify(req.event), waitingFor, now)
    return { absorbedBy: pending.id }
  }
  const until = rule.maxWaitMs === undefined ? null : now + rule.maxWaitMs
  const wait: DebounceWait = { reason: 'debounce', key, due: now + rule.periodMs, until }
  return { key: stored, held: waitText(wait, then), debounced: true }
}

/** Lets a key's pending run go on once its time came; else answers when it comes. */
export async function releaseDebounce(
  tx: SqlExecutor,
  workflowId: string,
  queue: readonly HeldRun[],
  at: number,
): Promise<{ ids: string[]; due?: number }> {
  const ids: string[] = []
  let due: number | undefined
  for (const run of queue) {
    const wait = JSON.parse(run.waiting_for) as DebounceWait
    const next = wait.due > at ? { started: false, due: wait.due } : await passOn(tx, workflowId, run, at)
    if (next.started) ids.push(run.id)
    if (next.due !== undefined) due = Math.min(due ?? next.due, next.due)
  }
  return { ids, due }
}
