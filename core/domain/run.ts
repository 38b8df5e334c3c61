/** Runs: statuses, the run record, and the bodies and answers of the run endpoints. */
import { type Static, Type as t } from '@sinclair/typebox'
import { Timestamp, TimestampOrEmpty } from './common.ts'

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
  error: t.String({ description: 'why the node failed; "" when it did not' }),
  branch: t.Optional(t.String()),
  startedAt: TimestampOrEmpty,
  finishedAt: TimestampOrEmpty,
  iterations: t.Optional(t.Array(t.Any(), { description: 'per-item states of a node inside a for-each body' })),
})
export type NodeRecord = Static<typeof NodeRecord>

/** What paid for a run started by an x402 payment. */
export const RunPayment = t.Object({
  payer: t.String({ description: 'the address that signed the payment' }),
  amount: t.String({ description: "in the token's smallest unit" }),
  asset: t.String({ description: 'the token contract' }),
  network: t.String({ description: 'CAIP-2 (eip155:<chainId>)' }),
  transaction: t.String({ description: 'the settlement transaction' }),
})
export type RunPayment = Static<typeof RunPayment>

export const Run = t.Object(
  {
    id: t.String(),
    workflowId: t.String(),
    workflowName: t.String({ description: 'the workflow\'s name as it is now; "" when the workflow is gone' }),
    workflowVersion: t.Integer(),
    organizationId: t.String(),
    status: literals(RUN_STATUSES),
    triggerType: t.String(),
    triggerNodeId: t.String(),
    triggeredBy: literals(TRIGGERED_BY),
    eventId: t.String({ description: 'the event that started the run (`evt_…`); "" when none did' }),
    retryOf: t.String({ description: 'the run this one retries; "" for a first run' }),
    startedAt: Timestamp,
    finishedAt: TimestampOrEmpty,
    error: t.Union([RunError, t.Null()]),
    propValues: t.Record(t.String(), t.Any()),
    vars: t.Record(t.String(), t.Any()),
    nodes: t.Optional(t.Record(t.String(), NodeRecord)),
    definition: t.Optional(t.Any()),
    payment: t.Optional(RunPayment),
    test: t.Optional(t.Boolean({ description: 'a test run of the draft (the editor): left out of production views' })),
    waitingFor: t.Optional(
      t.Object(
        { reason: literals(['concurrency', 'throttle', 'debounce', 'priority', 'fairness']), key: t.String() },
        { description: "a run held back by the workflow's flowControl (status waiting): what it waits for" },
      ),
    ),
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
  test: t.Optional(
    t.Boolean({
      description:
        "a test run of the draft: without a payload it takes the trigger's pinned sample (pinnedData); listed only with ?test=true",
    }),
  ),
})
export type RunBody = Static<typeof RunBody>

export const ResumeBody = t.Object({ data: t.Optional(t.Any()) })

/** A run a caller waited for (`Prefer: wait=<seconds>`, and paid calls): how it ended, and its output. */
export const WaitedRun = t.Object({
  id: t.String(),
  status: literals(RUN_STATUSES),
  output: t.Any({ description: "the result of the workflow's responseNodeId, else of the last node that finished" }),
})

export const WebhookResult = t.Object({
  action: t.Union(
    (['triggered', 'resumed', 'skipped', 'debounced'] as const).map((v) => t.Literal(v)),
    {
      description:
        "`debounced`: the workflow's flowControl debounce holds the event; `runIds` names its one pending run",
    },
  ),
  eventId: t.String(),
  reason: t.Optional(t.String()),
  runIds: t.Array(t.String()),
  run: t.Optional(WaitedRun),
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
