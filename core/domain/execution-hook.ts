/**
 * Execution hooks: the endpoints customers register, the delivery records of what was sent to
 * them, and the event types they can subscribe to (the run and node events of the journal).
 */
import { type Static, Type as t } from '@sinclair/typebox'
import { Timestamp, TimestampOrEmpty } from './common.ts'
import { NODE_EVENT_TYPES, RUN_EVENT_TYPES } from './run-events.ts'

/** The journal events that go to execution hooks; workflow events (`workflow.*`) do not. */
export const HOOK_EVENT_TYPES = [...RUN_EVENT_TYPES, ...NODE_EVENT_TYPES] as const
export type HookEventType = (typeof HOOK_EVENT_TYPES)[number]

const HOOK_EVENT_SET: ReadonlySet<string> = new Set(HOOK_EVENT_TYPES)
export const isHookEventType = (type: string): type is HookEventType => HOOK_EVENT_SET.has(type)

export const DELIVERY_STATUSES = ['pending', 'retrying', 'success', 'failure'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number]

export const SIGNING_SECRET_PREFIX = 'whsec_'
export const MAX_RETRIES_LIMIT = 20

const literals = <T extends readonly string[]>(values: T) => t.Union(values.map((v) => t.Literal(v)))

export const HookEndpoint = t.Object(
  {
    id: t.String(),
    organizationId: t.String(),
    name: t.String(),
    description: t.String(),
    url: t.String(),
    status: literals(ENDPOINT_STATUSES),
    subscribedEventTypes: t.Array(t.String(), {
      description: 'the event types sent to this endpoint; empty means all',
    }),
    maxRetries: t.Integer({ description: 'retries after a failed first attempt' }),
    disabledReason: t.String({
      description: 'why the endpoint was disabled: by a caller, or after a 410 Gone answer; "" while enabled',
    }),
    disabledAt: TimestampOrEmpty,
    previousSecretExpiresAt: t.Union(TimestampOrEmpty.anyOf, {
      description: 'until then deliveries carry a second signature made with the previous secret; "" when none do',
    }),
    createdAt: Timestamp,
    createdBy: t.String(),
    updatedAt: Timestamp,
  },
  { $id: 'HookEndpoint' },
)
export type HookEndpoint = Static<typeof HookEndpoint>

export const CreateHookEndpointBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 100 }),
  url: t.String({ minLength: 1, maxLength: 2000, description: 'https; http only for hosts the operator allows' }),
  description: t.Optional(t.String({ maxLength: 500 })),
  subscribedEventTypes: t.Optional(
    t.Array(t.String({ minLength: 1, maxLength: 64 }), {
      maxItems: HOOK_EVENT_TYPES.length,
      description: 'empty or absent: every event type',
    }),
  ),
  maxRetries: t.Optional(t.Integer({ minimum: 0, maximum: MAX_RETRIES_LIMIT, default: 8 })),
})
export type CreateHookEndpointBody = Static<typeof CreateHookEndpointBody>

/** Any of the fields of creation; at least one. Queued deliveries go to the new URL on their next attempt. */
export const UpdateHookEndpointBody = t.Object(
  {
    name: t.Optional(CreateHookEndpointBody.properties.name),
    url: t.Optional(CreateHookEndpointBody.properties.url),
    description: t.Optional(t.String({ maxLength: 500 })),
    subscribedEventTypes: t.Optional(CreateHookEndpointBody.properties.subscribedEventTypes),
    maxRetries: t.Optional(t.Integer({ minimum: 0, maximum: MAX_RETRIES_LIMIT })),
  },
  { minProperties: 1 },
)
export type UpdateHookEndpointBody = Static<typeof UpdateHookEndpointBody>

export const CreatedHookEndpoint = t.Object({
  endpoint: HookEndpoint,
  signingSecret: t.String({ description: '`whsec_…`; shown here and on regeneration only' }),
})

export const RegenerateSecretBody = t.Object({
  previousSecretTtlSeconds: t.Optional(
    t.Integer({
      minimum: 0,
      maximum: 7 * 86_400,
      default: 86_400,
      description:
        'how long deliveries are also signed with the old secret, so receivers can switch without dropping any; 0 stops the old secret at once',
    }),
  ),
})
export type RegenerateSecretBody = Static<typeof RegenerateSecretBody>

export const DeliveryAttempt = t.Object({
  at: Timestamp,
  responseStatus: t.Union([t.Integer(), t.Null()]),
  durationMs: t.Integer(),
  errorMessage: t.String({ description: '"" when the attempt got an answer' }),
})
export type DeliveryAttempt = Static<typeof DeliveryAttempt>

export const HookDelivery = t.Object(
  {
    id: t.String(),
    endpointId: t.String(),
    eventId: t.String({ description: 'the webhook-id header: the same for every retry and replay of this event' }),
    eventType: t.String(),
    workflowId: t.String({ description: '"" when the event names no workflow' }),
    runId: t.String({ description: '"" when the event names no run' }),
    nodeId: t.String({ description: '"" for an event of a run, not of one of its nodes' }),
    status: literals(DELIVERY_STATUSES),
    retryCount: t.Integer({ description: 'attempts made after the first' }),
    maxRetries: t.Integer(),
    nextRetryAt: TimestampOrEmpty,
    responseStatus: t.Union([t.Integer(), t.Null()]),
    responseBody: t.String({ description: 'the first 4 KiB of the last answer; "" before one' }),
    durationMs: t.Union([t.Integer(), t.Null()]),
    errorMessage: t.String({ description: 'why the last attempt failed without an answer; "" otherwise' }),
    attempts: t.Array(DeliveryAttempt, { description: 'the last attempts, oldest first' }),
    replayOf: t.String({ description: 'the delivery this one replays; "" for an original' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deliveredAt: TimestampOrEmpty,
    payload: t.Optional(t.Any({ description: 'the body sent; on GET …/deliveries/{id} only' })),
  },
  { $id: 'HookDelivery' },
)
export type HookDelivery = Static<typeof HookDelivery>

export interface DeliveryFilter {
  endpointId?: string
  status?: DeliveryStatus
  runId?: string
}
