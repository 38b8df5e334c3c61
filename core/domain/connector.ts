/**
 * The connector resource: an organization's configuration for a third-party platform, and the
 * bodies of the connector endpoints. Secret fields of `data` never come back: the output
 * carries `maskedData` (computed, never stored).
 */
import { type Static, Type as t } from '@sinclair/typebox'
import { Timestamp } from './common.ts'

const DataObject = t.Record(t.String(), t.Any(), {
  description: "fields of the connector type's data schema (GET /v1/connector-types)",
})

/** An OAuth2 connector's authorization, as the API shows it (never its tokens). */
export const ConnectorOAuth2Status = t.Object({
  state: t.Union([t.Literal('pending'), t.Literal('connected'), t.Literal('reconnect_needed')], {
    description:
      'pending: not authorized yet; connected: tokens held and kept current; reconnect_needed: the provider refused them, authorize again',
  }),
  expiresAt: t.Union([Timestamp, t.Literal('')], { description: 'when the current access token expires' }),
  scope: t.String({ description: 'the scope the provider granted' }),
  lastError: t.String({ description: 'why the last authorization or refresh failed; "" when nothing failed' }),
})
export type ConnectorOAuth2Status = Static<typeof ConnectorOAuth2Status>

export const Connector = t.Object(
  {
    id: t.String(),
    name: t.String(),
    description: t.String(),
    type: t.String({ description: 'the connector type' }),
    provider: t.String(),
    organizationId: t.String(),
    maskedData: t.Record(t.String(), t.Any(), {
      description: 'the data with secret fields masked (`••••` and the last 4 characters of long secrets)',
    }),
    createdAt: Timestamp,
    createdBy: t.String(),
    updatedAt: Timestamp,
    updatedBy: t.String(),
    oauth2: t.Optional(ConnectorOAuth2Status),
  },
  { $id: 'Connector' },
)
export type Connector = Static<typeof Connector>

export const CreateConnectorBody = t.Object({
  data: DataObject,
  name: t.String({ minLength: 1, maxLength: 100 }),
  type: t.String({ minLength: 1, maxLength: 100 }),
  description: t.Optional(t.String({ maxLength: 500 })),
})
export type CreateConnectorBody = Static<typeof CreateConnectorBody>

export const UpdateConnectorBody = t.Object({
  data: t.Optional(
    t.Record(t.String(), t.Any(), {
      description:
        'replaces the data; a secret field left out, or sent back as its mask, keeps its stored value; null removes an optional field',
    }),
  ),
  name: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  description: t.Optional(t.String({ maxLength: 500 })),
  type: t.Optional(t.String({ minLength: 1, maxLength: 100, description: 'cannot change; accepted when equal' })),
})
export type UpdateConnectorBody = Static<typeof UpdateConnectorBody>

export const ConnectorListQuery = t.Object({
  type: t.Optional(t.String({ maxLength: 100 })),
})

/** A connector opened for use: its decrypted data and its secret values (for masking). */
export interface OpenedConnector {
  readonly id: string
  readonly organizationId: string
  readonly type: string
  readonly data: Readonly<Record<string, unknown>>
  readonly secrets: readonly string[]
  /**
   * OAuth2 connectors: the connector opened again with a new access token, after the provider
   * refused `rejected` (a 401, or an answer `isExpired` recognizes).
   */
  renew?(rejected: string): Promise<OpenedConnector>
  /** OAuth2 connectors whose type has the hook: whether an answer says the access token expired. */
  isExpired?(response: { status: number; headers: Record<string, string>; body: string }): boolean
}
