/** Connector routes: CRUD of the organization's connectors; secrets are masked in every answer. */
import { Elysia } from 'elysia'
import { Page, pageRequest } from '../../domain/common.ts'
import { Connector, ConnectorListQuery, CreateConnectorBody, UpdateConnectorBody } from '../../domain/connector.ts'
import { CheckedConnector, ConnectorCheck } from '../../domain/connector-check.ts'
import type { ConnectorService } from '../../services/connectors.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams, PageQuery, t } from '../schemas.ts'

const tags = ['connectors']

export function connectorRoutes(auth: AuthPlugin, connectors: ConnectorService) {
  return new Elysia({ name: 'routes.connectors', prefix: '/v1/connectors' })
    .use(auth)
    .post('/', ({ principal, body }) => connectors.create(principal, body), {
      permission: 'connector:create',
      body: CreateConnectorBody,
      detail: doc({
        summary: 'Create a connector',
        description:
          "data is checked against the connector type's schema (GET /v1/connector-types); secret fields are encrypted at rest and come back masked in maskedData. When the connector type has a check, it runs after the save and its answer is `test` ({ ok, message }); a failing check does not undo the save.",
        tags,
        permission: 'connector:create',
        response: CheckedConnector,
      }),
    })
    .get('/', ({ principal, query }) => connectors.list(principal, pageRequest(query), query.type), {
      permission: 'connector:read',
      query: t.Composite([PageQuery, ConnectorListQuery]),
      detail: doc({
        summary: "List the organization's connectors, newest first",
        tags,
        permission: 'connector:read',
        response: Page(Connector),
      }),
    })
    .get('/:id', ({ principal, params }) => connectors.get(principal, params.id), {
      permission: 'connector:read',
      params: IdParams,
      detail: doc({
        summary: 'Read a connector (secrets masked)',
        tags,
        permission: 'connector:read',
        response: Connector,
        errors: [404],
      }),
    })
    .put('/:id', ({ principal, params, body }) => connectors.update(principal, params.id, body), {
      permission: 'connector:update',
      params: IdParams,
      body: UpdateConnectorBody,
      detail: doc({
        summary: "Change a connector's name, description or data",
        description:
          "data replaces the stored data. A secret field left out, or sent back as its mask, keeps its stored value; null removes an optional field. The type cannot change. The type's check runs after the save, its answer in `test` (as on create).",
        tags,
        permission: 'connector:update',
        response: CheckedConnector,
        errors: [404],
      }),
    })
    .post('/:id/test', ({ principal, params }) => connectors.test(principal, params.id), {
      permission: 'connector:read',
      params: IdParams,
      detail: doc({
        summary: "Run the connector type's check",
        description:
          "Calls the connector type's check with the stored data and answers { ok, message } (a check that fails, throws or takes longer than 10 s answers ok: false); null when the type has no check.",
        tags,
        permission: 'connector:read',
        response: t.Union([ConnectorCheck, t.Null()]),
        errors: [404],
      }),
    })
    .delete('/:id', ({ principal, params }) => connectors.remove(principal, params.id), {
      permission: 'connector:delete',
      params: IdParams,
      detail: doc({
        summary: 'Delete a connector',
        description:
          "Refused with 409 (listing the workflows) while a live workflow names it in a node's connector.id.",
        tags,
        permission: 'connector:delete',
        response: Connector,
        errors: [404, 409],
      }),
    })
}
