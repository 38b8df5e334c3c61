/** The schedule of a workflow as `GET /v1/workflows/{id}/schedule` shows it. */
import { type Static, Type as t } from '@sinclair/typebox'
import { TimestampOrEmpty } from './common.ts'

export const SCHEDULE_INACTIVE_REASONS = ['not_published', 'paused', 'archived', 'no_schedule_triggers'] as const

export const ScheduledTrigger = t.Object({
  triggerNodeId: t.String(),
  type: t.String({ description: "cronjob, schedule, or a plugin's time-based trigger" }),
  expression: t.String({ description: 'the cron expression or the rrule text, as written' }),
  timezone: t.String(),
  catchUp: t.Union([t.Literal('skip'), t.Literal('last'), t.Literal('all')]),
  catchUpLimit: t.Integer(),
  active: t.Boolean({ description: 'whether ticks start runs now' }),
  nextFireAt: TimestampOrEmpty,
  upcoming: t.Array(t.String(), { description: 'the next ticks (up to 5), from nextFireAt on; empty while inactive' }),
  lastFiredAt: TimestampOrEmpty,
  lastRunId: t.String({ description: 'the run the last tick started; "" when none did' }),
  lastOutcome: t.String({
    description:
      'triggered, or why the last tick started no run (cooldown, max_runs_exhausted, …); "" before the first tick',
  }),
  skippedTicks: t.Integer({ description: 'ticks missed while the service was down that started no run' }),
  lastSkippedAt: TimestampOrEmpty,
})
export type ScheduledTrigger = Static<typeof ScheduledTrigger>

export const WorkflowSchedule = t.Object({
  workflowId: t.String(),
  liveVersion: t.Union([t.Integer(), t.Null()]),
  active: t.Boolean({ description: 'true when at least one trigger ticks' }),
  reason: t.Union([...SCHEDULE_INACTIVE_REASONS.map((r) => t.Literal(r)), t.Literal('')], {
    description: 'why nothing ticks, when active is false; "" when the workflow can tick',
  }),
  triggers: t.Array(ScheduledTrigger),
})
export type WorkflowSchedule = Static<typeof WorkflowSchedule>
