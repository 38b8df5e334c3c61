/**
 * The auth macros. A route declares `{ permission: 'run:read' }` (or `{ authenticated: true }`
 * for any caller of an organization, `{ user: true }` for a person, with or without an
 * organization, `{ session: true }` for a sign-in session); the macro authenticates the caller,
 * checks what the route needs and hands the handler a `principal`.
 *
 * Callers: an API key (`Authorization: Bearer svcsk_…`), or a person's session
 * (`Authorization: Bearer sess_…`, or the `automaton_session` cookie). A cookie-authenticated
 * request that changes something must carry the session's `X-CSRF-Token`. A person in several
 * organizations names one with `X-Org-ID` on organization routes; a key is bound to one, and an
 * `X-Org-ID` naming another is 403.
 *
 * The order is what keeps a caller without a key from costing anything: the body middleware
 * authenticates the routes marked here before it reads a byte of the body, and the permission
 * is checked in the transform stage, before the body, query and parameters are validated. So an
 * unauthenticated request answers 401 whatever it carries, and an unauthorized one 403.
 */
import { Elysia } from 'elysia'
import { grantableApart, type Permission, ROLE_PERMISSIONS } from '../../domain/permissions.ts'
import { badRequest, forbidden, unauthorized } from '../../errors.ts'
import { sha256Hex, timingSafeEqual } from '../../security/hash.ts'
import { type AuthService, type Principal, requirePermission } from '../../services/auth.ts'
import { type PeopleService, type SessionCaller, SESSION_TOKEN_PREFIX } from '../../services/people.ts'
import { clientAddressOf, stateOf } from '../request-state.ts'

/** Marks the transform hooks of the auth macro, so that routes needing a key can be listed. */
const AUTHENTICATES = Symbol('authenticates')

export const SESSION_COOKIE = 'automaton_session'
export const CSRF_HEADER = 'x-csrf-token'
export const ORG_HEADER = 'x-org-id'

/** The CSRF token of a session: derived from its token, so nothing more is stored. */
export async function csrfTokenOf(sessionToken: string): Promise<string> {
  return (await sha256Hex(`csrf:${sessionToken}`)).slice(0, 43)
}

/** The session token a request carried, for the routes that answer about it. */
const sessionTokens = new WeakMap<Principal, string>()
export function sessionTokenOf(principal: Principal): string | null {
  return sessionTokens.get(principal) ?? null
}

export function cookieOf(request: Request, name: string): string | null {
  const header = request.headers.get('cookie')
  if (!header) return null
  for (const part of header.split(';')) {
    const at = part.indexOf('=')
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || null
  }
  return null
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export interface AuthGate {
  /** The caller of this request: authenticated once, then remembered for the request. */
  principalOf(request: Request): Promise<Principal>
}

/** A session caller in the organization it names (or its only one). */
function sessionPrincipal(caller: SessionCaller, orgHeader: string | null): Principal {
  let problem: Principal['organizationProblem']
  let membership = caller.memberships.length === 1 ? caller.memberships[0] : undefined
  if (orgHeader) {
    membership = caller.memberships.find((m) => m.organization_id === orgHeader)
    if (!membership) problem = forbidden(`you are not a member of the organization ${orgHeader} (X-Org-ID)`)
  } else if (caller.memberships.length === 0) {
    problem = forbidden('you are not a member of any organization')
  } else if (!membership) {
    problem = badRequest(
      'X-Org-ID header is required: you are a member of several organizations; name one with X-Org-ID',
      [
        {
          path: '/headers/X-Org-ID',
          message: 'required',
          organizations: caller.memberships.map((m) => m.organization_id),
        },
      ],
    )
  }
  const role = problem ? null : (membership?.role ?? null)
  return {
    kind: 'session',
    organizationId: problem ? '' : (membership?.organization_id ?? ''),
    keyId: null,
    sessionId: caller.sessionId,
    serviceAccountId: null,
    userId: caller.userId,
    role,
    scope: 'read-write',
    permissions: new Set(role ? ROLE_PERMISSIONS[role] : []),
    organizationProblem: problem,
  }
}

/**
 * Moderating templates and managing tags belong to the operator organization alone: its owners
 * hold `template:moderate` (no role does elsewhere), a service account there keeps it when it was
 * granted it, and everywhere else it is taken away, whatever the account says. What an owner may
 * hand out without holding it (`withheld`) stays grantable.
 */
async function withOperatorGrant(
  principal: Principal,
  isOperator: ((organizationId: string) => Promise<boolean>) | undefined,
): Promise<Principal> {
  const isOwner = principal.role === 'owner' && principal.serviceAccountId === null && principal.scope === 'read-write'
  if (!isOwner && !principal.permissions.has('template:moderate')) return principal
  const operator = principal.organizationId !== '' && isOperator ? await isOperator(principal.organizationId) : false
  const permissions = new Set(principal.permissions)
  if (operator) permissions.add('template:moderate')
  else permissions.delete('template:moderate')
  const withheld = new Set<Permission>([
    ...(principal.withheld ?? []),
    ...grantableApart(principal.role),
    'template:moderate',
  ])
  for (const p of permissions) withheld.delete(p)
  return { ...principal, permissions, withheld }
}

export function createAuthGate(
  auth: AuthService,
  people?: PeopleService,
  isOperator?: (organizationId: string) => Promise<boolean>,
): AuthGate {
  async function authenticate(request: Request): Promise<Principal> {
    const authorization = request.headers.get('authorization')
    const orgHeader = request.headers.get(ORG_HEADER)?.trim() || null
    const bearer = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined
    let token: string | null = null
    let viaCookie = false
    if (bearer?.startsWith(SESSION_TOKEN_PREFIX)) token = bearer
    else if (!authorization) {
      token = cookieOf(request, SESSION_COOKIE)
      viaCookie = token !== null
    }
    if (token === null || !people) {
      const principal = await auth.authenticate(authorization, {
        ip: clientAddressOf(request),
        userAgent: request.headers.get('user-agent'),
      })
      if (orgHeader && orgHeader !== principal.organizationId) {
        throw forbidden(`this API key belongs to another organization than X-Org-ID ${orgHeader}`)
      }
      return withOperatorGrant(principal, isOperator)
    }
    if (!token.startsWith(SESSION_TOKEN_PREFIX)) throw unauthorized('unknown or ended session; sign in again')
    const caller = await people.authenticate(token)
    if (viaCookie && !SAFE_METHODS.has(request.method)) {
      const sent = request.headers.get(CSRF_HEADER) ?? ''
      if (!timingSafeEqual(sent, await csrfTokenOf(token))) {
        throw forbidden('a request signed in by cookie needs the X-CSRF-Token header from GET /v1/auth/session')
      }
    }
    const principal = await withOperatorGrant(sessionPrincipal(caller, orgHeader), isOperator)
    sessionTokens.set(principal, token)
    return principal
  }
  return {
    async principalOf(request) {
      const state = stateOf(request)
      if (state?.principal) return state.principal as Principal
      const principal = await authenticate(request)
      if (state) state.principal = principal
      return principal
    },
  }
}

const inOrganization = (principal: Principal) => {
  if (principal.organizationProblem) throw principal.organizationProblem
}

export function authPlugin(gate: AuthGate) {
  const guard = (check: (principal: Principal) => void) =>
    Object.assign(async ({ request }: { request: Request }) => check(await gate.principalOf(request)), {
      [AUTHENTICATES]: true,
    })
  const resolve = async ({ request }: { request: Request }) => ({ principal: await gate.principalOf(request) })

  return new Elysia({ name: 'auth' }).macro({
    permission: (needs: Permission | readonly Permission[]) => ({
      transform: guard((principal) => {
        inOrganization(principal)
        for (const permission of typeof needs === 'string' ? [needs] : needs) requirePermission(principal, permission)
      }),
      resolve,
    }),
    authenticated: (on: true) => ({
      transform: guard((principal) => void (on && inOrganization(principal))),
      resolve,
    }),
    /** A person: a session, or a key made by a signed-in user. No organization needed. */
    user: (on: true) => ({
      transform: guard((principal) => {
        if (on && !principal.userId)
          throw unauthorized('this endpoint is for people: sign in, or use a key made by a signed-in user')
      }),
      resolve,
    }),
    /** A sign-in session itself (logout, the session's CSRF token, password change). */
    session: (on: true) => ({
      transform: guard((principal) => {
        if (on && principal.kind !== 'session')
          throw unauthorized('this endpoint needs a sign-in session (POST /v1/auth/login)')
      }),
      resolve,
    }),
  })
}

export type AuthPlugin = ReturnType<typeof authPlugin>

/** `METHOD path` of every route that needs a caller (its transform hooks carry the macro's mark). */
export function authenticatedRoutes(
  routes: ReadonlyArray<{ method: string; path: string; hooks?: unknown }>,
): Set<string> {
  const keyed = new Set<string>()
  for (const route of routes) {
    const transforms =
      (route.hooks as { transform?: Array<{ fn?: unknown } | ((...args: unknown[]) => unknown)> } | undefined)
        ?.transform ?? []
    const marked = transforms.some((h) => {
      const fn = typeof h === 'function' ? h : h?.fn
      return typeof fn === 'function' && (fn as unknown as Record<symbol, unknown>)[AUTHENTICATES] === true
    })
    if (marked) keyed.add(`${route.method} ${route.path}`)
  }
  return keyed
}
