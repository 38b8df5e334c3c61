import { Elysia } from 'elysia'
import { DOCS_PAGE } from '../docs-page.ts'
import { doc } from '../docs.ts'
import { buildOpenApi, type RouteLike } from '../openapi.ts'
import { raw } from '../responses.ts'

/** A 16-pixel icon (an ICO holding one PNG) for `/docs` and the console, so browsers find one. */
const FAVICON = Uint8Array.from(
  atob(
    'AAABAAEAEBAAAAEAIABdAAAAFgAAAIlQTkcNChoKAAAADUlIRFIAAAAQAAAAEAgGAAAAH/P/YQAAACRJREFUeNpjYBg0QFbZ4D8pmHYG+B/+jhePGjAyDBi4lDhgAAB5xjTACjIgmgAAAABJRU5ErkJggg==',
  ),
  (c) => c.charCodeAt(0),
)

/** `/v1/openapi.json`, `/docs` and `/favicon.ico`. The document is built once, on first request, from the final app. */
export function openApiRoutes(routesOf: () => readonly RouteLike[], version: string) {
  let cached: unknown
  return new Elysia({ name: 'routes.openapi' })
    .get('/v1/openapi.json', () => raw((cached ??= buildOpenApi(routesOf(), { title: 'Automaton API', version }))), {
      detail: doc({ summary: 'This API as OpenAPI 3.1', tags: ['meta'], raw: true }),
    })
    .get('/docs', () => new Response(DOCS_PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } }), {
      detail: doc({ summary: 'Browsable API reference', tags: ['meta'], produces: 'text/html' }),
    })
    .get(
      '/favicon.ico',
      () =>
        new Response(FAVICON, {
          headers: { 'content-type': 'image/x-icon', 'cache-control': 'public, max-age=86400' },
        }),
      { detail: doc({ summary: 'The icon browsers ask for', tags: ['meta'], hide: true }) },
    )
}
