/**
 * Flow control's rules combined: a run passes the rules that hold it back in order, debounce,
 * then throttle, then concurrency, and waits at the first one that has no room for it. What it
 * still has to pass after the rule it waits at is kept with it (`then`, in its stored wait), with
 * the keys its trigger data gave, so that a release moves it on to the next rule rather than start
 * it. A run that passed them all starts, counted against its concurrency key if it has one.
 *
 * A run waiting at a rule is stored under that rule's own key (`stageKey`): a throttle's or a
 * debounce's waiting runs never count as a concurrency key's, whatever the keys' values. Its
 * priority goes with its wait (`priority`), so that the runs a rule lets go start best ranked first.
 */
import type { FlowControl } from '../../core/domain/flow-control.ts'
import type { SqlExecutor } from '../../core/ports/store.ts'
import { flowBuckets, flowRuns, type HeldRun } from '../../core/store/flow-control.ts'

type Throttle = NonNullable<FlowControl['throttle']>

/** A rule still ahead of a run, with the key its trigger data gave. */
export type Stage =
  | { reason: 'throttle'; key: string; limit: number; periodMs: number; burst?: number }
  | { reason: 'concurrency'; key: string; limit: number }

/** Where a run stops: it starts (counted against `key` when it has a concurrency key), or waits at a rule. */
export type StageOutcome = { start: true; key?: string } | { start: false; key: string; held: string; due?: number }

/** The key a run is stored under while it waits at a rule; a concurrency key is its own (running runs count by it). */
export function stageKey(reason: string, key: string): string {
  return reason === 'concurrency' ? key : `\u0001${reason}\u0001${key}`
}

/** The rules after debounce that a run passes, in order, with its keys. */
export function stagesOf(fc: FlowControl, keyOf: (template: string | undefined) => string): Stage[] {
  const stages: Stage[] = []
  const { throttle, concurrency } = fc
  if (throttle) stages.push({ ...throttle, reason: 'throttle', key: keyOf(throttle.key) })
  if (concurrency) stages.push({ reason: 'concurrency', key: keyOf(concurrency.key), limit: concurrency.limit })
  return stages
}

/** A wait as stored: the rule's own fields, and the rules after it, when there are any. */
export function waitText(wait: object, then: readonly Stage[]): string {
  return JSON.stringify(then.length > 0 ? { ...wait, then } : wait)
}

/** A stored wait that carries the run's priority (none, or 0: the wait as it is). */
export function withPriority(waitingFor: string, priority: number | undefined): string {
  return priority ? JSON.stringify({ ...JSON.parse(waitingFor), priority }) : waitingFor
}

/** A held run's priority, as its stored wait carries it (0 when none). */
export const priorityHeld = (run: HeldRun): number =>
  (JSON.parse(run.waiting_for) as { priority?: number }).priority ?? 0

/**
 * A held run's rank among the runs waiting to start: its admission less one second per step of
 * priority (every run gains one step per second waited), lowest first.
 */
export const rankHeld = (run: HeldRun): number => Number(run.started_at) - priorityHeld(run) * 1000

/**
 * Takes one start from a throttle bucket whose next empty time is `tat` (null: a full bucket): the
 * new `tat`, or the time the bucket will next have a start (the generic cell rate algorithm).
 */
export function takeStart(
  tat: number | null,
  rule: Pick<Throttle, 'limit' | 'periodMs' | 'burst'>,
  now: number,
): { tat: number } | { at: number } {
  const interval = rule.periodMs / rule.limit
  const tolerance = ((rule.burst ?? rule.limit) - 1) * interval
  const from = Math.max(tat ?? now, now)
  if (from - now > tolerance) return { at: Math.ceil(from - tolerance) }
  return { tat: Math.ceil(from + interval) }
}

/**
 * Passes a run through `stages` in order: a throttle lets it by with a start from its bucket
 * (unless runs of its key wait there already), a concurrency key when it has room (and nobody waits
 * at it). Answers where it stops.
 */
export async function enterStages(
  tx: SqlExecutor,
  workflowId: string,
  stages: readonly Stage[],
  at: number,
): Promise<StageOutcome> {
  for (let i = 0; i < stages.length; i++) {
    const stage = stages[i]
    const stored = stageKey(stage.reason, stage.key)
    const { running, held } = await flowRuns.counts(tx, workflowId, stored)
    const waiting = { start: false as const, key: stored, held: waitText(stage, stages.slice(i + 1)) }
    if (stage.reason === 'concurrency') {
      if (running < stage.limit && held === 0) return { start: true, key: stage.key }
      return waiting
    }
    if (held > 0) return waiting
    const taken = takeStart(await flowBuckets.get(tx, workflowId, stage.key), stage, at)
    if (!('tat' in taken)) return { ...waiting, due: taken.at }
    await flowBuckets.set(tx, workflowId, stage.key, taken.tat)
  }
  return { start: true }
}

/**
 * A held run whose rule lets it go: it starts, or, with rules still ahead (`then`), moves on to
 * them and may wait at the next one. Answers whether it started, and when a rule it now waits at
 * has room (a throttle's next start).
 */
export async function passOn(
  tx: SqlExecutor,
  workflowId: string,
  run: HeldRun,
  at: number,
): Promise<{ started: boolean; due?: number }> {
  const { then = [], priority } = JSON.parse(run.waiting_for) as { then?: Stage[]; priority?: number }
  if (then.length === 0) return { started: (await flowRuns.release(tx, run.id, at)) > 0 }
  const next = await enterStages(tx, workflowId, then, at)
  if (next.start) return { started: (await flowRuns.release(tx, run.id, at, next.key ?? run.flow_key)) > 0 }
  await flowRuns.hold(tx, run.id, next.key, withPriority(next.held, priority))
  return { started: false, due: next.due }
}
