/**
 * The console's one way to the API: same origin, the session cookie, the CSRF token on every
 * request that changes something, and the organization chosen in the header bar.
 */
import { signal } from '@preact/signals'

export interface Session {
  user: {
    id: string
    email: string
    name: string
    memberships: Array<{ organizationId: string; organizationName: string; role: string }>
  }
  csrfToken: string
}

export const session = signal<Session | null | undefined>(undefined)
export const organization = signal<string | null>(localStorage.getItem('automaton.org'))

/**
 * Whether this browser may hold a session: set when a sign-in or an invitation succeeds, cleared
 * when the session is gone. Without it the console does not ask for the session at all, so the
 * sign-in page does not log a 401 on every visit (the cookie itself is HttpOnly).
 */
const SESSION_HINT = 'automaton.signedIn'
const SIGNS_IN = new Set(['/v1/auth/login', '/v1/auth/accept-invitation', '/v1/auth/oidc/link'])

/** Before leaving for an identity provider: the browser comes back with a session to ask for. */
export function expectSession(): void {
  localStorage.setItem(SESSION_HINT, '1')
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: Array<{ path?: string; message: string }> = [],
  ) {
    super(message)
  }
}

function headers(method: string, extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { ...extra }
  if (method !== 'GET' && session.value) h['x-csrf-token'] = session.value.csrfToken
  if (organization.value) h['x-org-id'] = organization.value
  return h
}

/** Calls `/v1…` and answers the envelope's `data`; an error answer throws its message and details. */
export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: headers(method, body === undefined ? {} : { 'content-type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  let parsed: any = null
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {
    parsed = null
  }
  if (response.ok && SIGNS_IN.has(path)) localStorage.setItem(SESSION_HINT, '1')
  if (path === '/v1/auth/logout' || (response.status === 401 && path === '/v1/auth/session'))
    localStorage.removeItem(SESSION_HINT)
  if (!response.ok) {
    if (response.status === 401 && !path.startsWith('/v1/auth/')) session.value = null
    throw new ApiError(
      response.status,
      parsed?.message ?? `${response.status} ${response.statusText}`,
      parsed?.details ?? [],
    )
  }
  return (parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed) as T
}

/** Whether the person may moderate templates here (the operator organization's owners). */
export const moderator = signal(false)

export async function loadSession(): Promise<void> {
  if (!localStorage.getItem(SESSION_HINT)) {
    session.value = null
    return
  }
  try {
    const s = await api<Session>('GET', '/v1/auth/session')
    const orgs = s.user.memberships
    if (!organization.value || !orgs.some((m) => m.organizationId === organization.value))
      chooseOrganization(orgs[0]?.organizationId ?? null)
    session.value = s
    void loadPermissions()
  } catch {
    session.value = null
  }
}

async function loadPermissions(): Promise<void> {
  try {
    moderator.value = (await api<{ permissions: string[] }>('GET', '/v1/me')).permissions.includes('template:moderate')
  } catch {
    moderator.value = false
  }
}

export function chooseOrganization(id: string | null): void {
  organization.value = id
  if (id) localStorage.setItem('automaton.org', id)
  else localStorage.removeItem('automaton.org')
  if (session.value) void loadPermissions()
}

/**
 * Follows a server-sent event stream with fetch (so the organization header goes along) and
 * calls `onEvent` with each event's parsed data. A broken connection is taken up again from the
 * last event id. When the server ends the stream (a run's ends after its last event), `onEnd`
 * says whether to open it again (a proxy may have cut it short). Answers a function that stops.
 */
export function follow(
  path: string,
  onEvent: (type: string, data: any) => void,
  onEnd: () => boolean | Promise<boolean> = () => true,
): () => void {
  const controller = new AbortController()
  let lastId: string | null = null
  let stopped = false
  const run = async () => {
    let wait = 1000
    while (!stopped) {
      try {
        const response = await fetch(path, {
          headers: headers('GET', lastId ? { 'last-event-id': lastId } : {}),
          signal: controller.signal,
          credentials: 'same-origin',
        })
        if (response.status === 401) session.value = null
        // A refusal (not signed in, no permission, no such run) does not change by asking again.
        if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429)
          return
        if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`)
        wait = 1000
        await readEvents(response.body, onEvent, (id) => (lastId = id))
        if (stopped || !(await onEnd())) return
      } catch {
        if (stopped) return
      }
      await new Promise((r) => setTimeout(r, wait))
      wait = Math.min(wait * 2, 30_000)
    }
  }
  void run()
  return () => {
    stopped = true
    controller.abort()
  }
}

/** Reads a server-sent event stream to its end, calling `onEvent` with each event's parsed data. */
async function readEvents(
  body: ReadableStream<any>,
  onEvent: (type: string, data: any) => void,
  onId: (id: string) => void = () => {},
): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += value.replace(/\r\n/g, '\n')
    let end: number
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      let type = 'message'
      const data: string[] = []
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) type = line.slice(6).trim()
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart())
        else if (line.startsWith('id:')) onId(line.slice(3).trim())
      }
      if (data.length === 0) continue
      try {
        onEvent(type, JSON.parse(data.join('\n')))
      } catch {
        onEvent(type, data.join('\n'))
      }
    }
  }
}

/** Sends a request whose answer is a stream of events (a chat turn); an error answer throws as `api` does. */
export async function stream(
  method: string,
  path: string,
  body: unknown,
  signal: AbortSignal,
  onEvent: (type: string, data: any) => void,
): Promise<void> {
  const response = await fetch(path, {
    method,
    signal,
    credentials: 'same-origin',
    headers: headers(method, { 'content-type': 'application/json', accept: 'text/event-stream' }),
    body: JSON.stringify(body),
  })
  if (!response.ok || !response.body) {
    const parsed = await response.json().catch(() => null)
    throw new ApiError(
      response.status,
      parsed?.message ?? `${response.status} ${response.statusText}`,
      parsed?.details ?? [],
    )
  }
  await readEvents(response.body, onEvent)
}
