/**
 * Flow control at admission (core/domain/flow-control.ts): the key each rule gives a run, and the
 * rate limit, a sliding window counted in the store so that it holds across processes, and the
 * rules that hold a run back, combined in order (flow-stages.ts: debounce, throttle, concurrency). The admission
 * locks the workflow row first (Postgres), so that two admissions never both see room for one
 * more run. A workflow without `flowControl` never reaches this file.
 */
import { clampPriority, type FlowControl } from '../../core/domain/flow-control.ts'
import { AppError, tooManyRequests } from '../../core/errors.ts'
import type { DispatchRequest, TriggerEvent } from '../../core/ports/engine.ts'
import type { SqlExecutor } from '../../core/ports/store.ts'
import type { RecordedEvent } from '../../core/domain-events.ts'
import type { Ids } from '../../core/ports/ids.ts'
import { flowHits, flowRuns } from '../../core/store/flow-control.ts'
import {
  ExpressionSyntaxError,
  type Lookup,
  parseTemplate,
  renderTemplate,
  stringifyValue,
} from '../expressions/index.ts'
import type { EventRecorder } from '../event-recorder.ts'
import { concurrencyOf, supersede } from './flow-concurrency.ts'
import { debounceOf } from './flow-debounce.ts'
import { enterStages, stagesOf, withPriority } from './flow-stages.ts'

/** The longest key kept: a longer value is cut (keys compare by their first 200 characters). */
const MAX_KEY = 200

/** The roots a key template reads: the trigger's event, as `$trigger` and as the trigger node's result. */
function triggerLookup(event: TriggerEvent, triggerNodeId: string): Lookup {
  return (root) => {
    if (root === '$trigger') return event
    if (root === 'root' || root === triggerNodeId) return { result: event }
    return undefined
  }
}

/** The value of a key or priority template for this event ('' for none, or for a malformed template). */
export function flowValue(template: string | undefined, event: TriggerEvent, triggerNodeId: string): unknown {
  if (template === undefined) return ''
  try {
    return renderTemplate(parseTemplate(template), triggerLookup(event, triggerNodeId))
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) return ''
    throw error
  }
}

/** A rule's key for this event: its template's value as text; no template gives the one shared key ''. */
export function flowKey(template: string | undefined, event: TriggerEvent, triggerNodeId: string): string {
  return stringifyValue(flowValue(template, event, triggerNodeId)).slice(0, MAX_KEY)
}

/** A run's priority: the integer, or its template's value, as −100..100 (0 when it gives no number). */
export function priorityOf(priority: number | string, event: TriggerEvent, triggerNodeId: string): number {
  return clampPriority(typeof priority === 'number' ? priority : flowValue(priority, event, triggerNodeId))
}

/** Whether flow control counts the runs of its keys (then the admission locks the workflow row); a priority alone does not. */
export function countsRuns(fc: FlowControl | null): boolean {
  return !!fc && !!(fc.rateLimit ?? fc.concurrency ?? fc.throttle ?? fc.debounce)
}

/** Whether a request is held by flow control: editor test runs never are. */
export function heldBy(req: DispatchRequest, fc: FlowControl | null | undefined): FlowControl | null {
  return fc && req.test !== true ? fc : null
}

/**
 * The rate limit of an event about to be admitted: refuses it when its key's window is full. A
 * webhook's or API caller's refusal is a 429 with Retry-After; an automatic trigger without a
 * caller (a schedule, an integration event) answers the skip reason `rate_limited`.
 */
export async function checkRate(
  tx: SqlExecutor,
  req: DispatchRequest,
  rule: NonNullable<FlowControl['rateLimit']>,
  key: string,
  now: number,
): Promise<'rate_limited' | null> {
  const { count, first } = await flowHits.window(tx, req.workflowId, key, now - rule.periodMs)
  if (count < rule.limit) return null
  if (req.automatic && req.triggerSecret === undefined) return 'rate_limited'
  const retryAfter = Math.max(1, Math.ceil(((first ?? now) + rule.periodMs - now) / 1000))
  throw tooManyRequests(
    `this workflow admits ${rule.limit} runs per ${rule.periodMs} ms for this key; try again later`,
    retryAfter,
    'rate_limited',
  )
}

/** What flow control decided for a run: why it is refused, or the key it waits for and whether it waits. */
export interface FlowAdmission {
  refused?: string
  /** The key the run counts against (concurrency) or waits for (its `flow_key`). */
  key?: string
  /** The run waits (`waiting_for`, as stored): admitted, held, not handed to the executor. */
  held?: string
  /** `cancel-in-progress`: the key's earlier runs are cancelled to make room for this one. */
  supersede?: number
  /** Debounce: the pending run that absorbed this event (nothing else is admitted). */
  absorbedBy?: string
  /** Debounce: the run admitted is the key's pending run (answered `debounced`). */
  debounced?: boolean
  /** Its priority (flowControl `priority`), kept with a held run's wait: releases start the best ranked first. */
  priority?: number
}

/** What flow control did with one event, as its metrics count it. */
export type FlowOutcome = 'admitted' | 'waiting' | 'debounced' | 'skipped' | 'refused'

/**
 * The outcome of an admission flow control decided (with the workflow, for the metrics after the
 * commit); none for a workflow whose flow control limits nothing (a priority alone), so such
 * workflows add no metric series.
 */
export function flowCounted(
  workflowId: string,
  flow: FlowAdmission | null,
  rules: FlowControl | null,
): { flow?: { workflowId: string; outcome: FlowOutcome } } {
  if (!flow || !countsRuns(rules)) return {}
  const outcome: FlowOutcome = flow.refused
    ? flow.refused === 'rate_limited'
      ? 'refused'
      : 'skipped'
    : flow.absorbedBy
      ? 'debounced'
      : flow.held !== undefined
        ? 'waiting'
        : 'admitted'
  return { flow: { workflowId, outcome } }
}

/** Whether an admission failed because a rate limit refused it (a 429 to its caller). */
export const rateRefused = (error: unknown) => error instanceof AppError && error.reason === 'rate_limited'

/**
 * Applies a workflow's flow control to one admission, inside its transaction (the workflow row
 * locked): the rate limit first, which refuses an event before anything else sees it, then the
 * rules that hold or skip the run, in order (debounce, throttle, concurrency: flow-stages.ts). Every
 * event the rate limit lets through and no rule skips counts in its window, a debounced one too.
 */
export async function admitFlow(
  tx: SqlExecutor,
  req: DispatchRequest,
  fc: FlowControl,
  triggerNodeId: string,
  now: number,
): Promise<FlowAdmission> {
  const keyOf = (template: string | undefined) => flowKey(template, req.event, triggerNodeId)
  const rateKey = fc.rateLimit ? keyOf(fc.rateLimit.key) : ''
  const refused = fc.rateLimit ? await checkRate(tx, req, fc.rateLimit, rateKey, now) : null
  if (refused) return { refused }
  const priority = fc.priority === undefined ? undefined : priorityOf(fc.priority, req.event, triggerNodeId)
  const decided = await ruleOf(tx, req, fc, keyOf, now, priority)
  if (decided.refused) return decided
  if (fc.rateLimit) await flowHits.add(tx, req.workflowId, rateKey, now, now - fc.rateLimit.periodMs)
  return priority ? { ...decided, priority } : decided
}

/** What the rules that hold or skip runs decide for this one. */
async function ruleOf(
  tx: SqlExecutor,
  req: DispatchRequest,
  fc: FlowControl,
  keyOf: (template: string | undefined) => string,
  now: number,
  priority: number | undefined,
): Promise<FlowAdmission> {
  const stages = stagesOf(fc, keyOf)
  if (fc.debounce) return debounceOf(tx, req, fc.debounce, keyOf(fc.debounce.key), stages, now, priority)
  // Skip and cancel-in-progress decide as the event comes (refused in combination with the others).
  if (fc.concurrency && !fc.throttle)
    return concurrencyOf(tx, req.workflowId, fc.concurrency, keyOf(fc.concurrency.key))
  const outcome = await enterStages(tx, req.workflowId, stages, now)
  if (outcome.start) return outcome.key === undefined ? {} : { key: outcome.key }
  return { key: outcome.key, held: outcome.held }
}

/**
 * After the run's row is written: holds it (waiting for its key) or counts it against its key, and
 * for `cancel-in-progress` cancels what it supersedes. Answers the events recorded and the runs to
 * wake after the commit.
 */
export async function placeRun(
  tx: SqlExecutor,
  deps: { recorder: EventRecorder; ids: Ids },
  workflowId: string,
  runId: string,
  flow: FlowAdmission,
  now: number,
): Promise<{ events: RecordedEvent[]; wake: string[] }> {
  if (flow.key === undefined) return { events: [], wake: [] }
  const superseded =
    flow.supersede !== undefined
      ? await supersede(tx, deps, workflowId, flow.key, flow.supersede, runId, now)
      : { events: [], wake: [] }
  if (flow.held !== undefined) await flowRuns.hold(tx, runId, flow.key, withPriority(flow.held, flow.priority))
  else await flowRuns.mark(tx, runId, flow.key)
  return superseded
}
