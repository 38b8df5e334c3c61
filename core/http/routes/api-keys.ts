import { Elysia } from 'elysia'
import { Type as t } from '@sinclair/typebox'
import { ApiKey, CreateApiKeyBody, CreatedApiKey, Me } from '../../domain/api-key.ts'
import { Page, pageRequest } from '../../domain/common.ts'
import { IdParams, PageQuery } from '../schemas.ts'
import type { ApiKeyService } from '../../services/api-keys.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'

const tags = ['api keys']

export function apiKeyRoutes(auth: AuthPlugin, apiKeys: ApiKeyService) {
  return new Elysia({ name: 'routes.api-keys' })
    .use(auth)
    .get(
      '/v1/me',
      ({ principal }) => ({
        kind: principal.kind,
        organizationId: principal.organizationId,
        // Unset strings are "" in answers (the specification's rule).
        keyId: principal.keyId ?? '',
        sessionId: principal.sessionId ?? '',
        userId: principal.userId ?? '',
        role: principal.role ?? '',
        serviceAccountId: principal.serviceAccountId ?? '',
        scope: principal.scope,
        permissions: [...principal.permissions].sort(),
      }),
      {
        authenticated: true,
        detail: doc({
          summary: 'The caller (an API key or a signed-in person), its organization and its effective permissions',
          tags,
          permission: 'authenticated',
          response: Me,
        }),
      },
    )
    .post('/v1/api-keys', ({ principal, body }) => apiKeys.create(principal, body), {
      permission: 'apikey:create',
      body: CreateApiKeyBody,
      detail: doc({
        summary: 'Create an API key; the raw key is in data.key and is shown once',
        description:
          "With serviceAccountId the key carries that account's permissions. A caller can grant only permissions it holds.",
        tags,
        permission: 'apikey:create',
        response: CreatedApiKey,
      }),
    })
    .get(
      '/v1/api-keys',
      ({ principal, query }) => apiKeys.list(principal, pageRequest(query), query.serviceAccountId),
      {
        permission: 'apikey:read',
        query: t.Composite([PageQuery, t.Object({ serviceAccountId: t.Optional(t.String({ maxLength: 64 })) })]),
        detail: doc({
          summary: "List the organization's API keys, newest first",
          tags,
          permission: 'apikey:read',
          response: Page(ApiKey),
        }),
      },
    )
    .get('/v1/api-keys/:id', ({ principal, params }) => apiKeys.get(principal, params.id), {
      permission: 'apikey:read',
      params: IdParams,
      detail: doc({ summary: 'Read an API key', tags, permission: 'apikey:read', response: ApiKey, errors: [404] }),
    })
    .delete('/v1/api-keys/:id', ({ principal, params }) => apiKeys.revoke(principal, params.id), {
      permission: 'apikey:revoke',
      params: IdParams,
      detail: doc({
        summary: 'Revoke an API key; the record stays with revokedAt',
        tags,
        permission: 'apikey:revoke',
        response: ApiKey,
        errors: [404],
      }),
    })
}
