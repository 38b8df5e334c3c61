/** The polling triggers of a workflow as `GET /v1/workflows/{id}/polls` shows them. */
import { type Static, Type as t } from '@sinclair/typebox'
import { TimestampOrEmpty } from './common.ts'

export const PolledTrigger = t.Object({
  triggerNodeId: t.String(),
  type: t.String({ description: 'the polling trigger type (feed-item, …)' }),
  active: t.Boolean({ description: 'whether it polls now (live version active, workflow not archived)' }),
  primed: t.Boolean({
    description: 'false until the first poll recorded the items already there (which start no run unless fireExisting)',
  }),
  cursor: t.Unknown({ description: "what the plugin's last poll returned as its cursor (an ETag, a time), or null" }),
  seenKeys: t.Integer({ description: 'how many item keys are remembered for deduplication' }),
  recentKeys: t.Array(t.String(), { description: 'the newest remembered keys (up to 20), newest last' }),
  nextPollAt: TimestampOrEmpty,
  lastPolledAt: TimestampOrEmpty,
  lastItems: t.Integer({ description: 'items the last successful poll returned' }),
  lastRuns: t.Integer({ description: 'runs the last successful poll started' }),
  lastError: t.String({ description: 'why the last poll failed; "" after a success' }),
  failures: t.Integer({ description: 'failed polls in a row (each doubles the wait, up to an hour)' }),
})
export type PolledTrigger = Static<typeof PolledTrigger>

export const WorkflowPolls = t.Object({
  workflowId: t.String(),
  triggers: t.Array(PolledTrigger),
})
export type WorkflowPolls = Static<typeof WorkflowPolls>
