/**
 * Flow control's throttle: at most `limit` runs per key started per `periodMs`, with a burst. A
 * token bucket holding `burst` (default `limit`) refilled at `limit` per `periodMs`, kept as one
 * number per key (the generic cell rate algorithm). A run without a token waits, held in order,
 * and starts as the bucket refills; nothing is dropped.
 */
import type { FlowControl } from '../../core/domain/flow-control.ts'
import type { SqlExecutor } from '../../core/ports/store.ts'
import { flowBuckets, flowRuns, type HeldRun } from '../../core/store/flow-control.ts'
import type { FlowAdmission } from './flow-control.ts'

type Throttle = NonNullable<FlowControl['throttle']>

/**
 * Takes one start from a bucket whose next empty time is `tat` (null: a full bucket): the new
 * `tat`, or the time the bucket will next have a start.
 */
export function takeStart(tat: number | null, rule: Throttle, now: number): { tat: number } | { at: number } {
  const interval = rule.periodMs / rule.limit
  const tolerance = ((rule.burst ?? rule.limit) - 1) * interval
  const from = Math.max(tat ?? now, now)
  if (from - now > tolerance) return { at: Math.ceil(from - tolerance) }
  return { tat: Math.ceil(from + interval) }
}

/** A run starts with a start from its key's bucket, unless runs of the key wait already; else it waits. */
export async function throttleOf(
  tx: SqlExecutor,
  workflowId: string,
  rule: Throttle,
  key: string,
  now: number,
): Promise<FlowAdmission> {
  const { held } = await flowRuns.counts(tx, workflowId, key)
  if (held === 0) {
    const taken = takeStart(await flowBuckets.get(tx, workflowId, key), rule, now)
    if ('tat' in taken) {
      await flowBuckets.set(tx, workflowId, key, taken.tat)
      return {}
    }
  }
  // Its release (flow-releases.ts) finds when the bucket next has a start.
  const waitingFor = { reason: 'throttle', key, limit: rule.limit, periodMs: rule.periodMs, burst: rule.burst }
  return { key, held: JSON.stringify(waitingFor) }
}

/** Starts the oldest held runs of a key, as many as its bucket holds; answers when the next one can. */
export async function releaseThrottle(
  tx: SqlExecutor,
  workflowId: string,
  key: string,
  queue: readonly HeldRun[],
  at: number,
): Promise<{ ids: string[]; due?: number }> {
  const rule = JSON.parse(queue[0].waiting_for) as Throttle
  let tat = await flowBuckets.get(tx, workflowId, key)
  const ids: string[] = []
  for (const run of queue) {
    const taken = takeStart(tat, rule, at)
    if (!('tat' in taken)) {
      if (tat !== null) await flowBuckets.set(tx, workflowId, key, tat)
      return { ids, due: taken.at }
    }
    tat = taken.tat
    if ((await flowRuns.release(tx, run.id, at)) > 0) ids.push(run.id)
  }
  if (tat !== null) await flowBuckets.set(tx, workflowId, key, tat)
  return { ids }
}
