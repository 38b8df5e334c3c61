/** Events received by integration webhooks, as `GET /v1/webhook-events` shows them, and the list filters. */
import { type Static, Type as t } from '@sinclair/typebox'
import { Timestamp } from './common.ts'

export const WEBHOOK_ACTIONS = ['triggered', 'resumed', 'skipped'] as const

export const WebhookEventRecord = t.Object(
  {
    id: t.String({
      description: "the audit id (`evt_…`): the Webhook result's eventId and the eventId of the runs it started",
    }),
    organizationId: t.String(),
    source: t.String({
      description: 'the plugin whose webhook received it: payprovider, eventsource, chatapp, crosschain …',
    }),
    providerEventId: t.String({
      description: "the platform's id of the event; a second delivery of it is a duplicate",
    }),
    triggerType: t.String(),
    connectorId: t.String({
      description: 'the connector that verified it, or that routed it to this organization; "" when none did',
    }),
    target: t.Union([t.Object({ workflowId: t.Optional(t.String()), runId: t.Optional(t.String()) }), t.Null()], {
      description: 'the workflow or run the event named, instead of matching',
    }),
    body: t.Any({ description: 'the trigger event body: {{$trigger.body}} of the runs it started' }),
    headers: t.Record(t.String(), t.String()),
    receivedAt: Timestamp,
    action: t.Union(WEBHOOK_ACTIONS.map((a) => t.Literal(a))),
    reason: t.String({
      description:
        'why nothing started or resumed: no_matching_workflow, invalid_event, duplicate, paused …; "" when something did',
    }),
    problems: t.Array(t.Object({ path: t.String(), message: t.String() }), {
      description: "with reason invalid_event: where the body breaks the trigger's schema",
    }),
    runIds: t.Array(t.String(), { description: 'the runs it started, then the runs it resumed' }),
    workflowIds: t.Array(t.String()),
    replayOf: t.String({ description: 'the event this one replays; "" for an original' }),
  },
  { $id: 'WebhookEvent' },
)
export type WebhookEventRecord = Static<typeof WebhookEventRecord>

export const WebhookEventFilter = t.Object({
  source: t.Optional(t.String({ maxLength: 100 })),
  triggerType: t.Optional(t.String({ maxLength: 100 })),
  action: t.Optional(t.Union(WEBHOOK_ACTIONS.map((a) => t.Literal(a)))),
  providerEventId: t.Optional(t.String({ maxLength: 255 })),
  workflowId: t.Optional(t.String({ maxLength: 64 })),
  runId: t.Optional(t.String({ maxLength: 64 })),
})
export type WebhookEventFilter = Static<typeof WebhookEventFilter>
