/**
 * `GET /metrics`: the Prometheus text exposition of this process, and the request metrics that
 * feed it (by route pattern, never by path, so labels stay bounded). Open unless the operator
 * sets AUTOMATON_METRICS_TOKEN, which a scraper then sends as a bearer token.
 */
import { Elysia } from 'elysia'
import type { Metrics } from '../../ports/metrics.ts'
import { unauthorized } from '../../errors.ts'
import { timingSafeEqual } from '../../security/hash.ts'
import { doc } from '../docs.ts'
import { stateOf } from '../request-state.ts'

export function metricsRoutes(metrics: Metrics, token: string | null) {
  return new Elysia({ name: 'routes.metrics' })
    .onAfterResponse({ as: 'global' }, ({ request, route, set, responseValue }) => {
      const pattern = route || 'unmatched'
      if (pattern === '/metrics') return
      // The status the client received: a Response a handler returned carries its own.
      const status =
        responseValue instanceof Response ? responseValue.status : typeof set.status === 'number' ? set.status : 200
      metrics.httpRequests.inc({ method: request.method, route: pattern, status: String(status) })
      const started = stateOf(request)?.startedAt
      if (started !== undefined)
        metrics.httpDuration.observe({ method: request.method, route: pattern }, (performance.now() - started) / 1000)
    })
    .get(
      '/metrics',
      async ({ request }) => {
        if (token) {
          const sent = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? ''
          if (!timingSafeEqual(sent, token))
            throw unauthorized('GET /metrics needs "Authorization: Bearer <AUTOMATON_METRICS_TOKEN>"')
        }
        return new Response(await metrics.text(), { headers: { 'content-type': metrics.contentType } })
      },
      {
        detail: doc({
          summary: 'Prometheus metrics of this process',
          description: 'Without AUTOMATON_METRICS_TOKEN, open; with it, send it as a bearer token.',
          tags: ['health'],
          produces: 'text/plain',
          errors: [401],
        }),
      },
    )
}
