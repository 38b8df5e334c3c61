import { type Static, Type as t } from '@sinclair/typebox'
import { Timestamp, TimestampOrEmpty } from './common.ts'
import { PERMISSIONS, SCOPES } from './permissions.ts'

export const RAW_KEY_PREFIX = 'svcsk_'

export const ApiKey = t.Object(
  {
    id: t.String(),
    name: t.String(),
    description: t.String(),
    keyPrefix: t.String({ description: 'leading part of the raw key, to recognise it' }),
    scope: t.Union(SCOPES.map((s) => t.Literal(s))),
    organizationId: t.String(),
    userId: t.String({ description: 'the person the key was made by; "" for none' }),
    serviceAccountId: t.String({ description: 'set when the key is bound to a service account; "" otherwise' }),
    role: t.String({ description: 'role of a key not bound to a service account; "" otherwise' }),
    createdAt: Timestamp,
    createdBy: t.String(),
    expiresAt: TimestampOrEmpty,
    lastUsedAt: TimestampOrEmpty,
    lastUsedIp: t.String(),
    lastUsedUserAgent: t.String(),
    revokedAt: t.Union([Timestamp, t.Literal('')], { description: 'set when revoked; the record stays' }),
  },
  { $id: 'ApiKey' },
)
export type ApiKey = Static<typeof ApiKey>

export const CreatedApiKey = t.Composite([
  ApiKey,
  t.Object({
    key: t.String({ description: 'the raw key; shown once, never again' }),
  }),
])

export const CreateApiKeyBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 100 }),
  description: t.Optional(t.String({ maxLength: 500 })),
  scope: t.Optional(
    t.Union(
      SCOPES.map((s) => t.Literal(s)),
      { default: 'read-write' },
    ),
  ),
  expiresAt: t.Optional(t.String({ format: 'date-time', description: 'RFC 3339; must be in the future' })),
  serviceAccountId: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
})
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>

export const Me = t.Object({
  /** `key` for an API key, `session` for a person signed in. */
  kind: t.Union([t.Literal('key'), t.Literal('session')]),
  organizationId: t.String(),
  keyId: t.String({ description: '"" for a person signed in' }),
  sessionId: t.String({ description: '"" for an API key' }),
  userId: t.String({ description: '"" when no person stands behind the caller' }),
  role: t.String({ description: '"" when the caller has no role (a service account\'s key)' }),
  serviceAccountId: t.String({ description: '"" unless the key belongs to a service account' }),
  scope: t.String(),
  permissions: t.Array(t.Union(PERMISSIONS.map((p) => t.Literal(p)))),
})
