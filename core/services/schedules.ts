/**
 * Schedules as the API shows them: the time-based triggers of a workflow's live version, when
 * they tick next and what their last tick did. Reading only; the runtime's scheduler keeps the
 * rows (runtime/schedules).
 */
import type { ScheduledTrigger, WorkflowSchedule } from '../domain/schedule.ts'
import { notFound } from '../errors.ts'
import type { Registry } from '../plugin/registry.ts'
import type { TriggerSchedule } from '../plugin/sdk.ts'
import type { Store } from '../ports/store.ts'
import { type ScheduleRow, schedules } from '../store/schedules.ts'
import { type WorkflowRow, workflows } from '../store/workflows.ts'
import { iso } from '../time.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'

const UPCOMING = 5

/** What a workflow's schedules are: its scheduled triggers, whether they tick, and why not. */
export interface ScheduleService {
  /** A workflow's scheduled triggers with their next and upcoming fires. */
  get(caller: Principal, workflowId: string): Promise<WorkflowSchedule>
}

export function createScheduleService(deps: { store: Store; registry: Registry }): ScheduleService {
  function scheduleOf(row: ScheduleRow): TriggerSchedule | null {
    try {
      return deps.registry.trigger(row.trigger_type)?.schedule?.(JSON.parse(row.config)) ?? null
    } catch {
      return null
    }
  }

  function reasonOf(w: WorkflowRow, rows: readonly ScheduleRow[]): WorkflowSchedule['reason'] {
    if (w.archived_at !== null) return 'archived'
    if (w.live_version === null) return 'not_published'
    if (w.live_status !== 'active') return 'paused'
    if (rows.length === 0) return 'no_schedule_triggers'
    return ''
  }

  function toTrigger(row: ScheduleRow, ticking: boolean): ScheduledTrigger {
    const schedule = scheduleOf(row)
    const active = ticking && row.active === 1 && schedule !== null && row.next_fire_at !== null
    const upcoming: string[] = []
    for (let at = active ? row.next_fire_at : null; at !== null && upcoming.length < UPCOMING; at = schedule!.next(at))
      upcoming.push(iso(at))
    return {
      triggerNodeId: row.trigger_node_id,
      type: row.trigger_type,
      expression: schedule?.expression ?? '',
      timezone: schedule?.timezone ?? '',
      catchUp: schedule?.catchUp ?? 'skip',
      catchUpLimit: schedule?.catchUpLimit ?? 10,
      active,
      // Unset strings are "" in answers (the specification's rule); the row keeps null.
      nextFireAt: (active ? iso(row.next_fire_at) : null) ?? '',
      upcoming,
      lastFiredAt: iso(row.last_fired_at) ?? '',
      lastRunId: row.last_run_id ?? '',
      lastOutcome: row.last_outcome ?? '',
      skippedTicks: Number(row.skipped_ticks),
      lastSkippedAt: iso(row.last_skipped_at) ?? '',
    }
  }

  return guarded<ScheduleService>(
    'schedules',
    {
      get: ['workflow:read'],
    },
    {
      async get(caller: Principal, workflowId: string): Promise<WorkflowSchedule> {
        const w = await workflows.byId(deps.store, caller.organizationId, workflowId)
        if (!w) throw notFound('workflow')
        const rows = await schedules.byWorkflow(deps.store, w.id)
        const reason = reasonOf(w, rows)
        const triggers = rows.map((row) => toTrigger(row, reason === ''))
        return {
          workflowId: w.id,
          liveVersion: w.live_version,
          active: triggers.some((t) => t.active),
          reason,
          triggers,
        }
      },
    },
  )
}
