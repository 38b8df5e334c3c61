/** The audit log's record: one per auditable act, chained per organization (docs/audit.md). */
import { type Static, Type as t } from '@sinclair/typebox'

export const AuditOutcome = t.Union([t.Literal('allowed'), t.Literal('refused'), t.Literal('failed')])
export type AuditOutcome = Static<typeof AuditOutcome>

export const AuditActor = t.Object({
  kind: t.Union([t.Literal('person'), t.Literal('key'), t.Literal('operator')], {
    description: "'operator': a command of the operator's CLI, id and name the operating-system user who ran it",
  }),
  id: t.String(),
  name: t.String(),
})
export type AuditActor = Static<typeof AuditActor>

export const AuditEvent = t.Object({
  id: t.String(),
  organizationId: t.String(),
  /** The record's place in its organization's chain, from 1; the stream's event id. */
  seq: t.Integer(),
  at: t.String({ format: 'date-time' }),
  actor: AuditActor,
  operation: t.String(),
  resource: t.Object({
    type: t.String(),
    id: t.String({ description: '"" when the act named no resource (a creation: see details.route)' }),
  }),
  outcome: AuditOutcome,
  address: t.String({ description: 'the client address; "" when the act came from no request' }),
  userAgent: t.String(),
  details: t.Record(t.String(), t.Unknown()),
  hash: t.String(),
})
export type AuditEvent = Static<typeof AuditEvent>

export const AuditEventFilter = t.Object({
  actorId: t.Optional(t.String({ maxLength: 100 })),
  resourceType: t.Optional(t.String({ maxLength: 100 })),
  resourceId: t.Optional(t.String({ maxLength: 200 })),
  operation: t.Optional(t.String({ maxLength: 200 })),
  since: t.Optional(t.String({ format: 'date-time' })),
  until: t.Optional(t.String({ format: 'date-time' })),
})
export type AuditEventFilter = Static<typeof AuditEventFilter>
