import { Elysia } from 'elysia'
import { Type as t } from '@sinclair/typebox'
import type { Bus } from '../../ports/bus.ts'
import type { BacklogReport } from '../../ports/engine.ts'
import type { Store } from '../../ports/store.ts'
import { doc } from '../docs.ts'
import { raw } from '../responses.ts'

export function healthRoutes(deps: { store: Store; bus: Bus; version: string; backlog?: () => BacklogReport | null }) {
  const check = async (probe: () => Promise<void>) => {
    try {
      await probe()
      return 'ok'
    } catch (error) {
      return `unreachable: ${error instanceof Error ? error.message : String(error)}`
    }
  }
  return new Elysia({ name: 'routes.health' })
    .get('/healthz', () => raw({ status: 'ok', version: deps.version }), {
      detail: doc({
        summary: 'The process is alive',
        tags: ['health'],
        raw: true,
        response: t.Object({ status: t.Literal('ok'), version: t.String() }),
      }),
    })
    .get(
      '/readyz',
      async () => {
        // Side by side: the answer waits for the slower check, not for both in turn.
        const [store, bus] = await Promise.all([check(() => deps.store.ping()), check(() => deps.bus.ping())])
        const checks = { store, bus }
        const ready = Object.values(checks).every((c) => c === 'ok')
        // A full backlog is not unreadiness: the process still answers (429s) and drains it.
        const backlog = deps.backlog?.() ?? undefined
        return raw(
          { status: ready ? 'ready' : 'unavailable', checks, ...(backlog ? { backlog } : {}) },
          ready ? 200 : 503,
        )
      },
      {
        detail: doc({
          summary: 'The store and the bus are reachable',
          tags: ['health'],
          raw: true,
          errors: [503],
          response: t.Object({
            status: t.String(),
            checks: t.Record(t.String(), t.String()),
            backlog: t.Optional(
              t.Object({
                total: t.Integer(),
                max: t.Integer(),
                perOrganizationMax: t.Integer(),
                drainPerSecond: t.Number(),
              }),
            ),
          }),
        }),
      },
    )
}
