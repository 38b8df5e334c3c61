/**
 * The audit log as the API serves it: a filtered list (newest first) and a live stream whose
 * event ids are the organization's chain sequence (send one back as Last-Event-ID to resume).
 */
import { Elysia } from 'elysia'
import { AuditEvent, AuditEventFilter } from '../../domain/audit.ts'
import { Page, pageRequest } from '../../domain/common.ts'
import type { AuditLog } from '../../services/audit-log.ts'
import type { Principal } from '../../services/auth.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { PageQuery, t } from '../schemas.ts'
import { lastEventId, type PushBodyFactory, sseResponse } from '../sse.ts'

const tags = ['audit']
/** How often a stream looks for new records. */
const POLL_MS = 500

export interface AuditRouteDeps {
  heartbeatMs: number
  maxBufferedBytes: number
  pushBody?: PushBodyFactory
}

function follow(audit: AuditLog, principal: Principal, after: number, deps: AuditRouteDeps) {
  return sseResponse({
    ...deps,
    open(channel) {
      let last = after
      let busy = false
      const poll = async () => {
        if (busy || channel.closed) return
        busy = true
        try {
          for (;;) {
            const events = await audit.after(principal, last, 200)
            for (const event of events) channel.send({ id: String(event.seq), event: 'audit', data: event })
            if (events.length > 0) last = events[events.length - 1].seq
            if (events.length < 200) break
          }
        } catch {
          channel.close()
        } finally {
          busy = false
        }
      }
      void poll()
      const timer = setInterval(poll, POLL_MS)
      return () => clearInterval(timer)
    },
  })
}

export function auditRoutes(auth: AuthPlugin, audit: AuditLog, deps: AuditRouteDeps) {
  return new Elysia({ name: 'routes.audit-events', prefix: '/v1/audit-events' })
    .use(auth)
    .get(
      '/',
      ({ principal, query }) => {
        const { limit, offset, ...filter } = query
        return audit.list(principal, pageRequest({ limit, offset }), filter)
      },
      {
        permission: 'audit:read',
        query: t.Composite([PageQuery, AuditEventFilter]),
        detail: doc({
          summary: "List the organization's audit records, newest first",
          description:
            'Filters: actorId, resourceType, resourceId, operation, since and until (ISO times; since inclusive, until exclusive). See docs/audit.md.',
          tags,
          permission: 'audit:read',
          response: Page(AuditEvent),
        }),
      },
    )
    .get(
      '/stream',
      async ({ principal, request, query }) => {
        const after = lastEventId(request, query.lastEventId) ?? (await audit.headOf(principal))
        return follow(audit, principal, after, deps)
      },
      {
        permission: 'audit:read',
        query: t.Object({ lastEventId: t.Optional(t.String({ maxLength: 30 })) }),
        detail: doc({
          summary: "Follow the organization's audit records as they are written",
          description:
            'Server-sent events named `audit`, each an audit record; the event id is its place in the chain. Without Last-Event-ID the stream starts at the moment of the request.',
          tags,
          permission: 'audit:read',
          produces: 'text/event-stream',
        }),
      },
    )
}
