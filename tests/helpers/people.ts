/** People in tests: invite by the API and accept, as a person would; sign in; call as that person. */
import { setClientAddress } from '../../core/http/request-state.ts'
import type { CallOptions, CallResult, TestSystem } from './system.ts'

export const PASSWORD = 'correct horse battery staple'

export interface Person {
  userId: string
  email: string
  /** The session token of the sign-in that accepting the invitation gave. */
  token: string
}

/** Invites `email` with `role` (by the owner key, or `inviterKey`) and accepts as a new person. */
export async function addMember(
  t: TestSystem,
  email: string,
  role = 'developer',
  options: { inviterKey?: string; inviterHeaders?: Record<string, string> } = {},
): Promise<Person> {
  const invited = await t.call('POST', '/v1/members', {
    body: { email, role },
    key: options.inviterKey,
    headers: options.inviterHeaders,
  })
  if (invited.status !== 200) throw new Error(`invite failed: ${invited.status} ${JSON.stringify(invited.body)}`)
  const accepted = await t.call('POST', '/v1/auth/accept-invitation', {
    key: null,
    body: { token: invited.body.data.token, name: email.split('@')[0], password: PASSWORD },
  })
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status} ${JSON.stringify(accepted.body)}`)
  return { userId: accepted.body.data.user.id, email: accepted.body.data.user.email, token: accepted.body.data.token }
}

export async function signIn(t: TestSystem, email: string, password = PASSWORD): Promise<CallResult> {
  return t.call('POST', '/v1/auth/login', { key: null, body: { email, password } })
}

/** Calls as a session by bearer token, optionally in an organization (X-Org-ID). */
export function asSession(t: TestSystem, token: string, orgId?: string) {
  return (method: string, path: string, options: CallOptions = {}) =>
    t.call(method, path, {
      ...options,
      key: token,
      headers: { ...(orgId ? { 'x-org-id': orgId } : {}), ...options.headers },
    })
}

/** Calls from a client at `address`, as the server adapter records the peer; no key unless given. */
export function fromAddress(t: TestSystem, address: string) {
  return async (method: string, path: string, options: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.key) headers.authorization = `Bearer ${options.key}`
    let body = options.rawBody
    if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers['content-type'] ??= 'application/json'
    }
    const request = new Request(`http://localhost${path}`, { method, headers, body })
    setClientAddress(request, address)
    const response = await t.system.app.handle(request)
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed }
  }
}
