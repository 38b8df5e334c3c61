/**
 * The auth macro. A route declares `{ permission: 'run:read' }` (or `{ authenticated: true }`
 * for any valid key); the macro authenticates the bearer key, checks the permission and hands
 * the handler a `principal`. 401 for a missing, unknown, revoked or expired key; 403 for a
 * missing permission.
 */
import { Elysia } from 'elysia'
import type { Permission } from '../../domain/permissions.ts'
import { type AuthService, type Principal, requirePermission } from '../../services/auth.ts'
import { clientAddressOf } from '../request-state.ts'

export function authPlugin(auth: AuthService) {
  const authenticate = (request: Request): Promise<Principal> =>
    auth.authenticate(request.headers.get('authorization'), {
      ip: clientAddressOf(request),
      userAgent: request.headers.get('user-agent'),
    })

  return new Elysia({ name: 'auth' }).macro({
    permission: (permission: Permission) => ({
      async resolve({ request }) {
        const principal = await authenticate(request)
        requirePermission(principal, permission)
        return { principal }
      },
    }),
    authenticated: (on: true) => ({
      async resolve({ request }) {
        void on
        return { principal: await authenticate(request) }
      },
    }),
  })
}

export type AuthPlugin = ReturnType<typeof authPlugin>
