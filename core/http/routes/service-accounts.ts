import { Elysia } from 'elysia'
import { Type as t } from '@sinclair/typebox'
import { Page, pageRequest } from '../../domain/common.ts'
import { IdParams, PageQuery } from '../schemas.ts'
import { CreateServiceAccountBody, ServiceAccount, UpdateServiceAccountBody } from '../../domain/service-account.ts'
import type { ServiceAccountService } from '../../services/service-accounts.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'

const tags = ['service accounts']

export function serviceAccountRoutes(auth: AuthPlugin, accounts: ServiceAccountService) {
  return new Elysia({ name: 'routes.service-accounts', prefix: '/v1/service-accounts' })
    .use(auth)
    .get('/', ({ principal, query }) => accounts.list(principal, pageRequest(query)), {
      permission: 'service_account:read',
      query: PageQuery,
      detail: doc({
        summary: 'List service accounts',
        tags,
        permission: 'service_account:read',
        response: Page(ServiceAccount),
      }),
    })
    .post('/', ({ principal, body }) => accounts.create(principal, body), {
      permission: 'service_account:write',
      body: CreateServiceAccountBody,
      detail: doc({
        summary: 'Create a service account with an explicit permission list',
        description:
          'The caller can grant only permissions it holds (403 otherwise). Mint its keys with POST /v1/api-keys and serviceAccountId.',
        tags,
        permission: 'service_account:write',
        response: ServiceAccount,
      }),
    })
    .get('/:id', ({ principal, params }) => accounts.get(principal, params.id), {
      permission: 'service_account:read',
      params: IdParams,
      detail: doc({
        summary: 'Read a service account',
        tags,
        permission: 'service_account:read',
        response: ServiceAccount,
        errors: [404],
      }),
    })
    .patch('/:id', ({ principal, params, body }) => accounts.update(principal, params.id, body), {
      permission: 'service_account:write',
      params: IdParams,
      body: UpdateServiceAccountBody,
      detail: doc({
        summary: 'Rename a service account or change its permissions',
        tags,
        permission: 'service_account:write',
        response: ServiceAccount,
        errors: [404],
      }),
    })
    .delete('/:id', ({ principal, params }) => accounts.remove(principal, params.id), {
      permission: 'service_account:write',
      params: IdParams,
      detail: doc({
        summary: 'Delete a service account and revoke its keys',
        tags,
        permission: 'service_account:write',
        errors: [404],
        response: t.Object({ id: t.String(), deleted: t.Literal(true) }),
      }),
    })
    .post('/:id/disable', ({ principal, params }) => accounts.setStatus(principal, params.id, 'disabled'), {
      permission: 'service_account:write',
      params: IdParams,
      detail: doc({
        summary: 'Disable a service account; its keys stop working at once',
        tags,
        permission: 'service_account:write',
        response: ServiceAccount,
        errors: [404],
      }),
    })
    .post('/:id/enable', ({ principal, params }) => accounts.setStatus(principal, params.id, 'active'), {
      permission: 'service_account:write',
      params: IdParams,
      detail: doc({
        summary: 'Enable a disabled service account',
        tags,
        permission: 'service_account:write',
        response: ServiceAccount,
        errors: [404],
      }),
    })
}
