/**
 * Catalog routes: trigger, action and connector types of the loaded plugins (built once per
 * app), and the allowed values of payload fields whose plugin loads them (dynamic options).
 */
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { ActionEntry, ConnectorTypeEntry, TriggerEntry } from '../../domain/catalog.ts'
import { OptionsAnswer, OptionsBody } from '../../domain/catalog-options.ts'
import { notFound } from '../../errors.ts'
import { buildCatalog, withTags } from '../../plugin/catalog.ts'
import type { Registry } from '../../plugin/registry.ts'
import type { CatalogOptionsService } from '../../services/catalog-options.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { t } from '../schemas.ts'

const tags = ['catalog']
const TagsQuery = t.Object({
  tags: t.Optional(
    t.Array(t.String({ maxLength: 100 }), {
      maxItems: 50,
      description: 'comma-separated or repeated; an entry must carry every tag',
    }),
  ),
})
const TriggersQuery = t.Composite([TagsQuery, t.Object({ platform: t.Optional(t.String({ maxLength: 100 })) })])
const TypeParams = t.Object({ type: t.String({ minLength: 1, maxLength: 100 }) })

/** `?tags=a,b&tags=c` → ['a', 'b', 'c']. */
const tagList = (query: { tags?: string[] }) =>
  (query.tags ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean)

const OPTIONS_DESCRIPTION =
  'Calls the option loader the plugin declares for `field` (marked `"x-dynamic-options": true` in payloadSchema) with the other fields\' `values`, the connector (connectorId, which needs connector:read), `search` and `cursor`. Pages are cached for 60 s per connector and inputs. `selected` reports on values[field]. 404: unknown type, or a field without a loader; 400: the loader failed (its message); 502: the platform could not be reached; 504: no answer within 10 s.'

export function catalogRoutes(auth: AuthPlugin, registry: Registry, options?: CatalogOptionsService) {
  const catalog = buildCatalog(registry)
  const find = <E extends { type: string }>(entries: readonly E[], type: string, what: string) => {
    const entry = entries.find((e) => e.type === type)
    if (!entry) throw notFound(what)
    return entry
  }
  return new Elysia({ name: 'routes.catalog' })
    .use(auth)
    .get(
      '/v1/triggers',
      ({ query }) =>
        withTags(catalog.triggers, tagList(query)).filter((e) => !query.platform || e.platform === query.platform),
      {
        permission: 'action:read',
        query: TriggersQuery,
        detail: doc({
          summary: 'List the trigger types of the loaded plugins',
          tags,
          permission: 'action:read',
          response: T.Array(TriggerEntry),
        }),
      },
    )
    .get('/v1/triggers/:type', ({ params }) => find(catalog.triggers, params.type, 'trigger type'), {
      permission: 'action:read',
      params: TypeParams,
      detail: doc({
        summary: 'Read one trigger type',
        tags,
        permission: 'action:read',
        response: TriggerEntry,
        errors: [404],
      }),
    })
    .get('/v1/actions', ({ query }) => withTags(catalog.actions, tagList(query)), {
      permission: 'action:read',
      query: TagsQuery,
      detail: doc({
        summary: 'List the action (node) types of the loaded plugins',
        tags,
        permission: 'action:read',
        response: T.Array(ActionEntry),
      }),
    })
    .get('/v1/actions/:type', ({ params }) => find(catalog.actions, params.type, 'action type'), {
      permission: 'action:read',
      params: TypeParams,
      detail: doc({
        summary: 'Read one action type',
        tags,
        permission: 'action:read',
        response: ActionEntry,
        errors: [404],
      }),
    })
    .get('/v1/connector-types', ({ query }) => withTags(catalog.connectorTypes, tagList(query)), {
      permission: 'connector:read',
      query: TagsQuery,
      detail: doc({
        summary: 'List the connector types of the loaded plugins, with their data schemas',
        tags,
        permission: 'connector:read',
        response: T.Array(ConnectorTypeEntry),
      }),
    })
    .get('/v1/connector-types/:type', ({ params }) => find(catalog.connectorTypes, params.type, 'connector type'), {
      permission: 'connector:read',
      params: TypeParams,
      detail: doc({
        summary: 'Read one connector type',
        tags,
        permission: 'connector:read',
        response: ConnectorTypeEntry,
        errors: [404],
      }),
    })
    .use(options ? optionRoutes(auth, options) : new Elysia({ name: 'routes.catalog-options' }))
}

/** `POST /v1/catalog/{triggers|actions}/{type}/options`: one page of a field's allowed values. */
function optionRoutes(auth: AuthPlugin, options: CatalogOptionsService) {
  const route = (kind: 'trigger' | 'action') =>
    ({
      permission: 'action:read',
      params: TypeParams,
      body: OptionsBody,
      detail: doc({
        summary: `List the allowed values of a ${kind} payload field`,
        description: OPTIONS_DESCRIPTION,
        tags,
        permission: 'action:read',
        response: OptionsAnswer,
        errors: [400, 404, 502, 504],
      }),
    }) as const
  return new Elysia({ name: 'routes.catalog-options' })
    .use(auth)
    .post(
      '/v1/catalog/triggers/:type/options',
      ({ principal, params, body }) => options.load(principal, 'trigger', params.type, body),
      route('trigger'),
    )
    .post(
      '/v1/catalog/actions/:type/options',
      ({ principal, params, body }) => options.load(principal, 'action', params.type, body),
      route('action'),
    )
}
