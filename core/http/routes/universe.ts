/** `GET /v1/situation/universe`: the tickers the situation trigger can watch (no envelope). */
import { Elysia } from 'elysia'
import { ASSET_CLASSES, UNIVERSE_MAX_LIMIT, UniversePage } from '../../domain/universe.ts'
import type { UniverseService } from '../../services/universe.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { raw } from '../responses.ts'
import { intParam, t } from '../schemas.ts'

const Query = t.Object({
  q: t.Optional(
    t.String({
      maxLength: 100,
      description: 'ranked search: exact symbol, symbol prefix, name-word prefix, then names containing it',
    }),
  ),
  asset_class: t.Optional(
    t.Union(
      ASSET_CLASSES.map((c) => t.Literal(c)),
      { description: 'listing filter' },
    ),
  ),
  limit: t.Optional(intParam('limit', { minimum: 1, maximum: UNIVERSE_MAX_LIMIT })),
  offset: t.Optional(intParam('offset', { minimum: 0 })),
})

export function universeRoutes(auth: AuthPlugin, universe: UniverseService) {
  return new Elysia({ name: 'routes.universe' })
    .use(auth)
    .get('/v1/situation/universe', async ({ query }) => raw(await universe.query(query)), {
      permission: 'universe:read',
      query: Query,
      detail: doc({
        summary: 'List or search the tickers of the situation universe',
        description:
          'With q: a ranked search (offset does not apply). Without: rank order, optionally one asset class. 503 with Retry-After while no universe is loaded (being imported, or switched off).',
        tags: ['situation'],
        permission: 'universe:read',
        raw: true,
        response: UniversePage,
        errors: [400, 503],
      }),
    })
}
