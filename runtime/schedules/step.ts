/**
 * One schedule row's step: plan its due tick by the trigger's catch-up policy, then claim the
 * tick and admit its run in one transaction (scheduler.ts says why that makes it exactly once).
 */
import { workflows } from '../../core/store/workflows.ts'
import { isAppError } from '../../core/errors.ts'
import type { DispatchRequest, DispatchResult, TriggerEvent } from '../../core/ports/engine.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { SqlExecutor, Store } from '../../core/ports/store.ts'
import type { TriggerSchedule } from '../../core/plugin/sdk.ts'
import { type ScheduleRow, schedules } from '../../core/store/schedules.ts'
import { iso } from '../../core/time.ts'
import type { EngineDispatcher } from '../engine/types.ts'
import { planTick, type TickPlan } from './plan.ts'
import type { Reconciler } from './reconcile.ts'

export type StepOutcome = 'fired' | 'skipped' | 'lost' | 'stale' | 'broken'

export interface StepDeps {
  store: Store
  logger: Logger
  dispatcher: EngineDispatcher
  reconciler: Reconciler
  /** How late a tick may fire and still be on time. */
  graceMs: number
  /** The row's schedule, or null when its trigger is gone or its configuration unusable (cached). */
  scheduleOf(row: ScheduleRow): TriggerSchedule | null
}

type Admit = (request: DispatchRequest) => Promise<DispatchResult>
type ClaimedWork = (tx: SqlExecutor, admit: Admit) => Promise<StepOutcome>

/** Fires, skips or parks the row's due tick. */
export async function stepSchedule(deps: StepDeps, row: ScheduleRow, now: number): Promise<StepOutcome> {
  const schedule = deps.scheduleOf(row)
  if (!schedule) {
    // The trigger is gone or its configuration unusable: park the row until a reconcile.
    await deps.store.write((tx) => schedules.markInvalid(tx, row.id, now))
    return 'broken'
  }
  const plan = planTick({
    next: schedule.next,
    due: row.next_fire_at!,
    now,
    graceMs: deps.graceMs,
    catchUp: schedule.catchUp ?? 'skip',
    catchUpLimit: schedule.catchUpLimit ?? 10,
  })
  try {
    return await claim(deps, row, plan, now, fire(row, schedule, plan, now))
  } catch (error) {
    if (!isAppError(error) || plan.fire === null) throw error
    // The dispatcher refused the tick for good (its workflow version is unreadable): move past it.
    deps.logger.error('a schedule tick could not start a run', {
      scheduleId: row.id,
      tick: iso(plan.fire),
      error: error.message,
    })
    return claim(deps, row, plan, now, async (tx) => {
      await schedules.recordTick(tx, {
        id: row.id,
        firedAt: plan.fire!,
        runId: null,
        outcome: `error: ${error.message}`.slice(0, 300),
      })
      return 'skipped'
    })
  }
}

/** Claims the row's due tick and admits its run, in one transaction. */
function claim(deps: StepDeps, row: ScheduleRow, plan: TickPlan, now: number, work: ClaimedWork): Promise<StepOutcome> {
  return deps.dispatcher.transaction(async (tx, admit): Promise<StepOutcome> => {
    const w = await workflows.lockById(tx, deps.store.dialect, row.workflow_id)
    if (!w || w.live_version !== row.version) {
      await deps.reconciler.reconcile(tx, row.workflow_id)
      return 'stale'
    }
    const claimed = await schedules.claimTick(tx, {
      id: row.id,
      due: row.next_fire_at,
      next: plan.next,
      skipped: plan.skipped,
      at: now,
    })
    if (claimed === 0) return 'lost'
    return work(tx, admit)
  })
}

/** Admits the tick's run, if the plan fires one, and records the tick. */
function fire(row: ScheduleRow, schedule: TriggerSchedule, plan: TickPlan, now: number): ClaimedWork {
  return async (tx, admit) => {
    if (plan.fire === null) return 'skipped'
    const result = await admit({
      organizationId: row.organization_id,
      workflowId: row.workflow_id,
      version: 'live',
      automatic: true,
      triggeredBy: 'schedule',
      triggerNodeId: row.trigger_node_id,
      idempotencyKey: `schedule:${row.id}:${iso(plan.fire)}`,
      event: tickEvent(row, schedule, plan, now),
    })
    await schedules.recordTick(tx, {
      id: row.id,
      firedAt: plan.fire,
      runId: result.runId ?? null,
      outcome: result.action === 'skipped' ? result.reason : result.action,
    })
    return result.action === 'skipped' ? 'skipped' : 'fired'
  }
}

function tickEvent(row: ScheduleRow, schedule: TriggerSchedule, plan: TickPlan, now: number): TriggerEvent {
  return {
    type: row.trigger_type,
    body: {
      scheduledFor: iso(plan.fire!),
      firedAt: iso(now),
      scheduleId: row.id,
      expression: schedule.expression,
      timezone: schedule.timezone,
      catchUp: plan.late,
    },
    headers: {},
    receivedAt: iso(now),
  }
}
