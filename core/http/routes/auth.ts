/**
 * People's side of the API: sign-in, the session, logout, password change, accepting an
 * invitation, and a person's interest settings. Sessions are described in services/people.ts.
 *
 * Sign-in and accepting an invitation take JSON only (415 otherwise): a form or a text body is
 * what another site's page can make a browser send, and either answer sets the session cookie.
 */
import { Elysia } from 'elysia'
import { notePersonAct } from '../../services/audit-context.ts'
import { Type as T } from '@sinclair/typebox'
import { isAppError, unauthorized, unsupportedMediaType } from '../../errors.ts'
import type { Principal } from '../../services/auth.ts'
import type { PeopleService, SignedIn } from '../../services/people.ts'
import { PASSWORD_MAX_LENGTH } from '../../ports/passwords.ts'
import { doc } from '../docs.ts'
import {
  type AuthGate,
  type AuthPlugin,
  cookieOf,
  csrfTokenOf,
  SESSION_COOKIE,
  sessionTokenOf,
} from '../middleware/auth.ts'
import { clientAddressOf, clientUrlOf } from '../request-state.ts'
import { t } from '../schemas.ts'

const tags = ['people']
const Email = t.String({ minLength: 3, maxLength: 320 })
const Password = t.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH })

const UserShape = T.Object({
  id: T.String(),
  email: T.String(),
  name: T.String(),
  createdAt: T.String(),
  memberships: T.Array(T.Object({ organizationId: T.String(), organizationName: T.String(), role: T.String() })),
})
const SignedInShape = T.Object({ token: T.String(), expiresAt: T.String(), user: UserShape })
const AcceptedShape = T.Object({ token: T.Optional(T.String()), expiresAt: T.Optional(T.String()), user: UserShape })

const metaOf = (request: Request) => ({ ip: clientAddressOf(request), userAgent: request.headers.get('user-agent') })

/** The session cookie: HttpOnly, SameSite=Lax, and Secure whenever the client came over HTTPS. */
function sessionCookie(request: Request, value: string, maxAgeSeconds: number): string {
  const secure = clientUrlOf(request).startsWith('https:') ? '; Secure' : ''
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${maxAgeSeconds}${secure}`
}

/** Before the body is validated: anything but `application/json` is refused. */
function jsonOnly({ request }: { request: Request }): void {
  const type = request.headers.get('content-type')?.split(';')[0].trim().toLowerCase()
  if (type !== 'application/json') throw unsupportedMediaType('application/json')
}

/**
 * The person signed in on a request that carries a session (bearer, or cookie with its CSRF
 * token), or null. A cookie of an ended session alone counts as none: a browser keeps it.
 */
async function signedInOf(gate: AuthGate, request: Request): Promise<{ userId: string } | null> {
  const bearer = request.headers.get('authorization') !== null
  if (!bearer && cookieOf(request, SESSION_COOKIE) === null) return null
  let principal: Principal
  try {
    principal = await gate.principalOf(request)
  } catch (error) {
    if (!bearer && isAppError(error) && error.status === 401) return null
    throw error
  }
  if (principal.kind !== 'session')
    throw unauthorized('accepting an invitation as an existing account needs its sign-in session, not an API key')
  return { userId: principal.userId! }
}

export function authRoutes(auth: AuthPlugin, gate: AuthGate, people: PeopleService) {
  const signIn = (request: Request, set: { headers: Record<string, string | number> }, result: SignedIn) => {
    // A session just begun: it lasts the whole maximum age (the idle limit is the server's to keep).
    set.headers['set-cookie'] = sessionCookie(request, result.token, Math.floor(people.settings.maxAgeMs / 1000))
    return result
  }
  return new Elysia({ name: 'routes.auth' })
    .use(auth)
    .post(
      '/v1/auth/login',
      async ({ body, request, set }) => signIn(request, set, await people.login(body, metaOf(request))),
      {
        transform: jsonOnly,
        body: t.Object({ email: Email, password: Password }),
        detail: doc({
          summary: 'Sign in with email and password',
          description:
            'Answers the session token and sets it as the HttpOnly cookie `automaton_session`. A wrong email and a wrong password answer the same 401; past 5 failures of an account, or 20 from an address, in 15 minutes, 429 with Retry-After. JSON only: any other Content-Type is 415.',
          tags,
          response: SignedInShape,
          errors: [415, 429],
        }),
      },
    )
    .post(
      '/v1/auth/logout',
      async ({ principal, request, set }) => {
        set.headers['set-cookie'] = sessionCookie(request, '', 0)
        notePersonAct(principal.userId!, 'auth.signOut')
        return people.logout(principal.sessionId!)
      },
      {
        session: true,
        detail: doc({
          summary: 'End this session',
          tags,
          permission: 'authenticated',
          response: T.Object({ loggedOut: T.Literal(true) }),
        }),
      },
    )
    .get(
      '/v1/auth/session',
      async ({ principal }) => {
        const token = sessionTokenOf(principal)!
        const caller = await people.authenticate(token, { recheck: true })
        return {
          ...(await people.session(caller)),
          sessionId: principal.sessionId,
          csrfToken: await csrfTokenOf(token),
        }
      },
      {
        session: true,
        detail: doc({
          summary: 'This session: the user, their organizations, when it ends, and the CSRF token',
          description:
            'Send `csrfToken` as `X-CSRF-Token` with every cookie-authenticated request that changes something. A session begun by single sign-on is checked with its identity provider now (401 when the provider, or the groups it answers, ended it).',
          tags,
          permission: 'authenticated',
          response: T.Object({ user: UserShape, expiresAt: T.String(), sessionId: T.String(), csrfToken: T.String() }),
        }),
      },
    )
    .post(
      '/v1/auth/password',
      async ({ principal, body, request, set }) =>
        signIn(request, set, await people.changePassword({ userId: principal.userId! }, body, metaOf(request))),
      {
        session: true,
        body: t.Object({ currentPassword: Password, newPassword: Password }),
        detail: doc({
          summary: 'Change your password: every session of yours ends and this answer carries a new one',
          description:
            'A wrong current password is 403 and counts as a failed sign-in of the account: past 5 in 15 minutes, 429 with Retry-After.',
          tags,
          permission: 'authenticated',
          response: SignedInShape,
          errors: [429],
        }),
      },
    )
    .post(
      '/v1/auth/accept-invitation',
      async ({ body, request, set }) => {
        const result = await people.acceptInvitation(body, await signedInOf(gate, request), metaOf(request))
        return 'token' in result ? signIn(request, set, result) : result
      },
      {
        transform: jsonOnly,
        body: t.Object({
          token: t.String({ minLength: 1, maxLength: 200 }),
          name: t.Optional(t.String({ maxLength: 200 })),
          password: t.Optional(Password),
        }),
        detail: doc({
          summary: 'Accept an invitation',
          description:
            'A person who has an account accepts while signed in as the invited email (a session: bearer, or cookie with X-CSRF-Token) and sends the token alone; the answer is their user with the new membership. A new person sends the token with a name and a password (at least 10 characters), and is signed in: the answer carries the session token and sets the cookie. Without a session, an email that has an account is 401, as is a request without name and password. JSON only: any other Content-Type is 415.',
          tags,
          response: AcceptedShape,
          errors: [404, 409, 415],
        }),
      },
    )
    .use(interestRoutes(auth, people))
}

/** A person's interest tags, and whether they personalise templates and tags. */
function interestRoutes(auth: AuthPlugin, people: PeopleService) {
  return new Elysia({ name: 'routes.interests' })
    .use(auth)
    .get('/v1/user/interests/settings', ({ principal }) => people.interestSettings(principal.userId!), {
      user: true,
      detail: doc({
        summary: 'Whether your interest tags personalise templates and tags',
        tags,
        permission: 'authenticated',
        response: T.Object({ enabled: T.Boolean() }),
      }),
    })
    .put(
      '/v1/user/interests/settings',
      // The body is optional: without `enabled` nothing changes and the answer is the current setting.
      async ({ principal, body }) =>
        body?.enabled === undefined
          ? await people.interestSettings(principal.userId!)
          : await people.setInterestSettings(principal.userId!, body.enabled),
      {
        user: true,
        body: t.Optional(t.Object({ enabled: t.Optional(t.Boolean()) }, { additionalProperties: false })),
        detail: doc({
          summary: 'Turn your interest tags on or off',
          description: 'Without a body (or with `{}`) nothing changes and the answer is the current setting.',
          tags,
          permission: 'authenticated',
          response: T.Object({ enabled: T.Boolean() }),
        }),
      },
    )
    .get('/v1/user/interests', ({ principal }) => people.interests(principal.userId!), {
      user: true,
      detail: doc({
        summary: 'Your interest tags',
        tags,
        permission: 'authenticated',
        response: T.Object({ tags: T.Array(T.String()) }),
      }),
    })
    .put('/v1/user/interests', ({ principal, body }) => people.setInterests(principal.userId!, body.tags), {
      user: true,
      body: t.Object({ tags: t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 }) }),
      detail: doc({
        summary: 'Set your interest tags (at most 50 known tag slugs)',
        tags,
        permission: 'authenticated',
        response: T.Object({ tags: T.Array(T.String()) }),
      }),
    })
}
