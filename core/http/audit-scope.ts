/**
 * The HTTP side of the audit log: each request that carries credentials (or signs in) runs in an
 * audit scope holding its address and user agent. When the request has answered, an act that no
 * write recorded is recorded on its own: a refusal (403), a failed change, a change that wrote
 * nothing, a secret read. An operation refused that the request did not name (a chat's tool) is
 * recorded as it happens.
 */
import type { Principal } from '../services/auth.ts'
import { type AuditScope, auditScopes } from '../services/audit-context.ts'
import { type AuditAct, type AuditLog, actorOf } from '../services/audit-log.ts'
import type { Store } from '../ports/store.ts'
import type { Logger } from '../ports/logger.ts'
import { clientAddressOf, stateOf } from './request-state.ts'
import { SESSION_COOKIE, cookieOf } from './middleware/auth.ts'

type Handle = (request: Request) => Promise<Response>

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Requests that may be a person's or a key's act: webhooks and other trigger traffic are not. */
function mayBeAudited(request: Request): boolean {
  if (request.headers.has('authorization') || cookieOf(request, SESSION_COOKIE) !== null) return true
  return !READS.has(request.method) && new URL(request.url).pathname.startsWith('/v1/auth/')
}

interface AuditedDeps {
  audit: AuditLog
  store: Store
  logger: Logger
  routeOf: (request: Request) => string
}

function scopeOf(request: Request, deps: AuditedDeps): AuditScope {
  const address = clientAddressOf(request)
  const userAgent = request.headers.get('user-agent')
  const route = () => deps.routeOf(request)
  return {
    address,
    userAgent,
    route,
    principal: () => {
      const principal = stateOf(request)?.principal as Principal | undefined
      return principal?.organizationId ? principal : undefined
    },
    changes: !READS.has(request.method),
    async recordRefusal({ caller, operation, reason }) {
      const act: AuditAct = {
        organizationId: caller.organizationId,
        actor: actorOf(caller),
        operation,
        resource: { type: operation.split('.')[0], id: null },
        outcome: 'refused',
        address,
        userAgent,
        details: { route: route(), reason },
      }
      // Apart: this write carries no other act of the request.
      await deps.store
        .write((tx) => deps.audit.append(tx, [act]), { apart: true })
        .catch((error) => deps.logger.error('could not record an audit event', { error: String(error), operation }))
    },
  }
}

function outcomeOf(scope: AuditScope, status: number): AuditScope['outcome'] | null {
  if (status === 403 || scope.refused) return 'refused'
  if (scope.person && status >= 400) return null
  if (!scope.changes && !scope.secretRead) return null
  return status >= 400 ? 'failed' : 'allowed'
}

export function auditedHandle(handle: Handle, deps: AuditedDeps): Handle {
  return async (request) => {
    if (!mayBeAudited(request)) return handle(request)
    const scope = scopeOf(request, deps)
    const response = await auditScopes.run(scope, () => handle(request))
    scope.closed = true
    const outcome = outcomeOf(scope, response.status)
    if (scope.recorded || scope.claimed || !outcome) return response
    if (!scope.person && !scope.principal()) return response
    try {
      await deps.store.write(async (tx) =>
        deps.audit.append(tx, await deps.audit.actsOf(tx, scope, outcome, { status: response.status })),
      )
    } catch (error) {
      deps.logger.error('could not record an audit event', { error: String(error), route: scope.route() })
    }
    return response
  }
}
