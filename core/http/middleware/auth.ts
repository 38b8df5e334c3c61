/**
 * The auth macro. A route declares `{ permission: 'run:read' }` (or `{ authenticated: true }`
 * for any valid key); the macro authenticates the bearer key, checks the permission and hands
 * the handler a `principal`. 401 for a missing, unknown, revoked or expired key; 403 for a
 * missing permission.
 *
 * The order is what keeps a caller without a key from costing anything: the body middleware
 * authenticates the routes marked here before it reads a byte of the body, and the permission
 * is checked in the transform stage, before the body, query and parameters are validated. So an
 * unauthenticated request answers 401 whatever it carries, and an unauthorized one 403.
 */
import { Elysia } from 'elysia'
import type { Permission } from '../../domain/permissions.ts'
import { type AuthService, type Principal, requirePermission } from '../../services/auth.ts'
import { clientAddressOf, stateOf } from '../request-state.ts'

/** Marks the transform hooks of the auth macro, so that routes needing a key can be listed. */
const AUTHENTICATES = Symbol('authenticates')

export interface AuthGate {
  /** The caller of this request: authenticated once, then remembered for the request. */
  principalOf(request: Request): Promise<Principal>
}

export function createAuthGate(auth: AuthService): AuthGate {
  return {
    async principalOf(request) {
      const state = stateOf(request)
      if (state?.principal) return state.principal as Principal
      const principal = await auth.authenticate(request.headers.get('authorization'), {
        ip: clientAddressOf(request),
        userAgent: request.headers.get('user-agent'),
      })
      if (state) state.principal = principal
      return principal
    },
  }
}

export function authPlugin(gate: AuthGate) {
  const guard = (check: (principal: Principal) => void) =>
    Object.assign(async ({ request }: { request: Request }) => check(await gate.principalOf(request)), { [AUTHENTICATES]: true })
  const resolve = async ({ request }: { request: Request }) => ({ principal: await gate.principalOf(request) })

  return new Elysia({ name: 'auth' }).macro({
    permission: (permission: Permission) => ({
      transform: guard((principal) => requirePermission(principal, permission)),
      resolve,
    }),
    authenticated: (on: true) => ({
      transform: guard(() => void on),
      resolve,
    }),
  })
}

export type AuthPlugin = ReturnType<typeof authPlugin>

/** `METHOD path` of every route that needs a key (its transform hooks carry the macro's mark). */
export function authenticatedRoutes(routes: ReadonlyArray<{ method: string; path: string; hooks?: unknown }>): Set<string> {
  const keyed = new Set<string>()
  for (const route of routes) {
    const transforms = (route.hooks as { transform?: Array<{ fn?: unknown } | ((...args: unknown[]) => unknown)> } | undefined)?.transform ?? []
    const marked = transforms.some((h) => {
      const fn = typeof h === 'function' ? h : h?.fn
      return typeof fn === 'function' && (fn as unknown as Record<symbol, unknown>)[AUTHENTICATES] === true
    })
    if (marked) keyed.add(`${route.method} ${route.path}`)
  }
  return keyed
}
