/** The trigger subscriptions of a workflow as `GET /v1/workflows/{id}/subscriptions` shows them. */
import { type Static, Type as t } from '@sinclair/typebox'
import { Timestamp, TimestampOrEmpty } from './common.ts'

export const TriggerSubscription = t.Object({
  id: t.String(),
  triggerNodeId: t.String(),
  type: t.String({ description: 'the trigger type whose onEnable made the subscription' }),
  state: t.Union(
    [t.Literal('enabling'), t.Literal('enabled'), t.Literal('disabling'), t.Literal('disabled'), t.Literal('failed')],
    {
      description:
        'enabling: onEnable pending (retried); enabled: the platform holds it; disabling: onDisable pending (retried with backoff for up to a day); disabled: removed; failed: removal given up (see lastError)',
    },
  ),
  expiresAt: TimestampOrEmpty,
  nextAttemptAt: TimestampOrEmpty,
  attempts: t.Integer({ description: 'failed calls in a row' }),
  lastError: t.String({ description: 'the last failed call\'s reason; "" after a success' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})
export type TriggerSubscription = Static<typeof TriggerSubscription>

export const WorkflowSubscriptions = t.Object({
  workflowId: t.String(),
  subscriptions: t.Array(TriggerSubscription, {
    description: 'oldest first per trigger node; values of the store are never shown',
  }),
})
export type WorkflowSubscriptions = Static<typeof WorkflowSubscriptions>
