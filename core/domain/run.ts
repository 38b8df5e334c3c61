/** Runs: statuses, the run record, and the bodies and answers of the run endpoints. */
import { type Static, Type as t } from '@sinclair/typebox'
import { MaybeTimestamp, Timestamp } from './common.ts'

export const RUN_STATUSES = ['running', 'waiting', 'success', 'partial', 'failure', 'cancelled'] as const
export type RunStatus = (typeof RUN_STATUSES)[number]

export const NODE_STATUSES = [
  'pending',
  'running',
  'success',
  'partial',
  'failure',
  'skipped',
  'waiting',
  'scheduled',
  'cancelled',
] as const
export type NodeStatus = (typeof NODE_STATUSES)[number]

export const TRIGGERED_BY = [
  'key',
  'user',
  'webhook',
  'schedule',
  'integration',
  'workflow',
  'public',
  'retry',
] as const
export type TriggeredBy = (typeof TRIGGERED_BY)[number]

const literals = <T extends readonly string[]>(values: T) => t.Union(values.map((v) => t.Literal(v)))

export const RunError = t.Object({ message: t.String(), nodeId: t.Optional(t.String()), code: t.Optional(t.String()) })
export type RunError = Static<typeof RunError>

export const NodeRecord = t.Object({
  type: t.String(),
  status: literals(NODE_STATUSES),
  attempts: t.Integer(),
  input: t.Optional(t.Any()),
  result: t.Optional(t.Any()),
  error: t.Optional(t.Union([t.String(), t.Null()])),
  branch: t.Optional(t.String()),
  startedAt: MaybeTimestamp,
  finishedAt: MaybeTimestamp,
  iterations: t.Optional(t.Array(t.Any(), { description: 'per-item states of a node inside a for-each body' })),
})
export type NodeRecord = Static<typeof NodeRecord>

export const Run = t.Object(
  {
    id: t.String(),
    workflowId: t.String(),
    workflowVersion: t.Integer(),
    organizationId: t.String(),
    status: literals(RUN_STATUSES),
    triggerType: t.String(),
    triggerNodeId: t.String(),
    triggeredBy: literals(TRIGGERED_BY),
    eventId: t.Union([t.String(), t.Null()]),
    retryOf: t.Union([t.String(), t.Null()]),
    startedAt: Timestamp,
    finishedAt: MaybeTimestamp,
    error: t.Union([RunError, t.Null()]),
    propValues: t.Record(t.String(), t.Any()),
    vars: t.Record(t.String(), t.Any()),
    nodes: t.Optional(t.Record(t.String(), NodeRecord)),
    definition: t.Optional(t.Any()),
  },
  { $id: 'Run' },
)
export type Run = Static<typeof Run>

export const RunBody = t.Object({
  payload: t.Optional(
    t.Record(t.String(), t.Any(), { description: 'its keys feed the trigger input: {{root.result.body.<key>}}' }),
  ),
  runId: t.Optional(
    t.String({
      pattern: '^run_[0-9A-Za-z]{10,40}$',
      description: 'your own run id, to subscribe to the run stream before starting it',
    }),
  ),
  propValues: t.Optional(t.Record(t.String(), t.Any())),
})
export type RunBody = Static<typeof RunBody>

export const ResumeBody = t.Object({ data: t.Optional(t.Any()) })

export const WebhookResult = t.Object({
  action: literals(['triggered', 'resumed', 'skipped'] as const),
  eventId: t.String(),
  reason: t.Optional(t.String()),
  runIds: t.Array(t.String()),
})
export type WebhookResult = Static<typeof WebhookResult>

export const StatusCounts = t.Object({
  total: t.Integer(),
  counts: t.Object(Object.fromEntries(RUN_STATUSES.map((s) => [s, t.Integer()]))),
})

export const FailureStatistics = t.Object({
  total: t.Integer(),
  failed: t.Integer(),
  partial: t.Integer(),
  failureRate: t.Number({ description: 'percentage, 0 to 100' }),
})
