import { Elysia } from 'elysia'
import { DOCS_PAGE } from '../docs-page.ts'
import { doc } from '../docs.ts'
import { buildOpenApi, type RouteLike } from '../openapi.ts'
import { raw } from '../responses.ts'

/** `/v1/openapi.json` and `/docs`. The document is built once, on first request, from the final app. */
export function openApiRoutes(routesOf: () => readonly RouteLike[], version: string) {
  let cached: unknown
  return new Elysia({ name: 'routes.openapi' })
    .get('/v1/openapi.json', () => raw((cached ??= buildOpenApi(routesOf(), { title: 'Automaton API', version }))), {
      detail: doc({ summary: 'This API as OpenAPI 3.1', tags: ['meta'], raw: true }),
    })
    .get('/docs', () => new Response(DOCS_PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } }), {
      detail: doc({ summary: 'Browsable API reference', tags: ['meta'], produces: 'text/html' }),
    })
}
