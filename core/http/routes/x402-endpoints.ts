/** Paid endpoints an organization buys from: the one-step import, and the records. */
import { Elysia } from 'elysia'
import { Page, pageRequest } from '../../domain/common.ts'
import type { X402Endpoints } from '../../services/x402-endpoints.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams, PageQuery, t } from '../schemas.ts'
import { Type as T } from '@sinclair/typebox'

const tags = ['x402']
const Endpoint = T.Record(T.String(), T.Any(), { description: 'the x402 endpoint record of the specification' })

export function x402EndpointRoutes(auth: AuthPlugin, endpoints: X402Endpoints) {
  return new Elysia({ name: 'routes.x402-endpoints' })
    .use(auth)
    .post('/v1/x402-endpoints/import', ({ principal, body }) => endpoints.import(principal, body), {
      permission: ['x402:write', 'wallet:withdraw'],
      body: t.Object({
        resourceUrl: t.String({ minLength: 1, maxLength: 2000 }),
        method: t.Optional(t.Union(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => t.Literal(m)))),
        body: t.Optional(t.Record(t.String(), t.Any())),
        name: t.Optional(t.String({ maxLength: 100 })),
        description: t.Optional(t.String({ maxLength: 500 })),
        walletAddress: t.Optional(t.String({ maxLength: 64 })),
      }),
      detail: doc({
        summary: 'Import a paid x402 endpoint in one step: probe, pay once, record',
        description:
          'The resource must answer 402 with a requirement this installation can pay. maxAllowedPrice is set to 5 times the price. An endpoint imported already is 409, and nothing is paid.',
        tags,
        permission: ['x402:write', 'wallet:withdraw'],
        errors: [409],
        response: T.Object({
          endpoint: Endpoint,
          paymentDetails: T.Object({
            amountPaid: T.String(),
            asset: T.String(),
            network: T.String(),
            payer: T.String(),
            transaction: T.Union([T.String(), T.Null()]),
          }),
        }),
      }),
    })
    .post('/v1/x402-endpoints/discover', ({ principal, body }) => endpoints.discover(principal, body), {
      permission: 'x402:read',
      body: t.Object({
        url: t.String({
          minLength: 1,
          maxLength: 2000,
          description: "A Bazaar's discovery list, such as https://…/v1/x402/discovery/resources",
        }),
        type: t.Optional(t.String({ maxLength: 20 })),
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
        offset: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000 })),
      }),
      detail: doc({
        summary: "List a Bazaar's paid resources, to import one",
        description:
          'Each resource says whether this installation can pay it (payable) and whether the organization imported it already. Importing one of them records the endpoint with source provider_bazaar.',
        tags,
        permission: 'x402:read',
        response: T.Object({
          items: T.Array(T.Record(T.String(), T.Any())),
          pagination: T.Object({ limit: T.Integer(), offset: T.Integer(), total: T.Integer() }),
        }),
      }),
    })
    .get('/v1/x402-endpoints', ({ principal, query }) => endpoints.list(principal, pageRequest(query)), {
      permission: 'x402:read',
      query: PageQuery,
      detail: doc({
        summary: "The organization's imported x402 endpoints",
        tags,
        permission: 'x402:read',
        response: Page(Endpoint),
      }),
    })
    .get('/v1/x402-endpoints/:id', ({ principal, params }) => endpoints.get(principal, params.id), {
      permission: 'x402:read',
      params: IdParams,
      detail: doc({
        summary: 'An imported x402 endpoint with its statistics',
        tags,
        permission: 'x402:read',
        response: Endpoint,
        errors: [404],
      }),
    })
    .put('/v1/x402-endpoints/:id', ({ principal, params, body }) => endpoints.update(principal, params.id, body), {
      permission: 'x402:write',
      params: IdParams,
      body: t.Object({
        name: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
        description: t.Optional(t.String({ maxLength: 500 })),
        category: t.Optional(t.String({ maxLength: 100 })),
        maxAllowedPrice: t.Optional(t.String({ pattern: '^[0-9]{1,78}$' })),
        tags: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 20 })),
      }),
      detail: doc({
        summary: 'Change an imported x402 endpoint',
        tags,
        permission: 'x402:write',
        response: Endpoint,
        errors: [404],
      }),
    })
    .delete('/v1/x402-endpoints/:id', ({ principal, params }) => endpoints.remove(principal, params.id), {
      permission: 'x402:write',
      params: IdParams,
      detail: doc({
        summary: 'Delete an imported x402 endpoint',
        tags,
        permission: 'x402:write',
        errors: [404],
        response: T.Object({ id: T.String(), deleted: T.Literal(true) }),
      }),
    })
}
