/**
 * Flow control's throttle: at most `limit` runs per key started per `periodMs`, with a burst. A
 * token bucket holding `burst` (default `limit`) refilled at `limit` per `periodMs`, kept as one
 * number per key (the generic cell rate algorithm, flow-stages.ts `takeStart`). A run without a
 * token waits, held in order (best ranked first), and goes on as the bucket refills (to a concurrency key after it,
 * or it starts); nothing is dropped.
 */
import type { SqlExecutor } from '../../core/ports/store.ts'
import { flowBuckets, type HeldRun } from '../../core/store/flow-control.ts'
import { passOn, type Stage, takeStart } from './flow-stages.ts'

/** Lets the first held runs of a key by (`queue`, best ranked first), as many as its bucket holds; answers when the next one can go. */
export async function releaseThrottle(
  tx: SqlExecutor,
  workflowId: string,
  queue: readonly HeldRun[],
  at: number,
): Promise<{ ids: string[]; due?: number }> {
  const rule = JSON.parse(queue[0].waiting_for) as Extract<Stage, { reason: 'throttle' }>
  let tat = await flowBuckets.get(tx, workflowId, rule.key)
  const ids: string[] = []
  let due: number | undefined
  for (const run of queue) {
    const taken = takeStart(tat, rule, at)
    if (!('tat' in taken)) {
      due = Math.min(due ?? taken.at, taken.at)
      break
    }
    tat = taken.tat
    // The bucket is written before the run goes on: a throttle after it reads its own row.
    await flowBuckets.set(tx, workflowId, rule.key, tat)
    const passed = await passOn(tx, workflowId, run, at)
    if (passed.started) ids.push(run.id)
    if (passed.due !== undefined) due = Math.min(due ?? passed.due, passed.due)
  }
  return { ids, due }
}
