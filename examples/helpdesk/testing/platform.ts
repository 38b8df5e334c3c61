/**
 * A stand-in for the help-desk platform, for the example's tests: its tickets API (numbered
 * tickets, listed after a number), webhook registrations that answer a signing secret, agents
 * listed in pages, replies deduplicated by idempotency key, and OAuth2 endpoints that hand over to
 * a real OAuth2 server (the tests' oidc-provider), whose introspection decides which tokens pass.
 */
import { createHmac } from 'node:crypto'

export interface Ticket {
  id: string
  number: number
  subject: string
  queue: string
  requester: string
  createdAt: string
  status: string
}

export interface Registration {
  id: string
  url: string
  secret: string
}

/** A signed update, ready to post: what the help desk would send to a registration's URL. */
export interface Delivery {
  url: string
  rawBody: string
  headers: Record<string, string>
}

export interface HelpdeskPlatform {
  readonly url: string
  readonly tickets: Ticket[]
  readonly registrations: Map<string, Registration>
  readonly replies: { ticketId: string; agent: string; text: string; key: string; token: string }[]
  /** Every webhook registration removed, by id. */
  readonly removed: string[]
  open(subject: string, queue?: string): Ticket
  /** Changes a ticket and answers the signed update for each registration. */
  update(ticketId: string, status: string): Delivery[]
  /** Answers the next API request 200 with a `token_expired` error, as the help desk says a token expired. */
  expireNext(): void
  stop(): void
}

export const AGENTS = Array.from({ length: 25 }, (_, i) => ({
  id: `ag_${i + 1}`,
  name: `${['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara'][i % 5]} ${i + 1}`,
}))
const PAGE = 10

/** Starts the platform; `issuer` is the OAuth2 server its /oauth endpoints hand over to. */
export function startHelpdesk(issuer: string, isActive: (token: string) => Promise<boolean>): HelpdeskPlatform {
  const tickets: Ticket[] = []
  const registrations = new Map<string, Registration>()
  const replies: HelpdeskPlatform['replies'] = []
  const removed: string[] = []
  let expire = false
  let events = 0

  async function api(request: Request, url: URL, token: string): Promise<Response> {
    const path = url.pathname
    if (path === '/api/me') return Response.json({ name: 'Automaton bot' })
    if (path === '/api/tickets') {
      const after = Number(url.searchParams.get('after') ?? 0)
      const queue = url.searchParams.get('queue')
      const found = tickets.filter((t) => t.number > after && (!queue || t.queue === queue))
      return Response.json({ tickets: found.slice(0, Number(url.searchParams.get('limit') ?? 100)) })
    }
    if (path === '/api/agents') {
      const search = (url.searchParams.get('search') ?? '').toLowerCase()
      const page = Number(url.searchParams.get('page') ?? 1)
      const found = AGENTS.filter((a) => a.name.toLowerCase().includes(search))
      const agents = found.slice((page - 1) * PAGE, page * PAGE)
      return Response.json({ agents, nextPage: page * PAGE < found.length ? page + 1 : null })
    }
    if (path === '/api/webhooks' && request.method === 'POST') {
      const { url: target } = (await request.json()) as { url: string }
      const id = `wh_${registrations.size + removed.length + 1}`
      const registration = { id, url: target, secret: `whsec_${crypto.randomUUID()}` }
      registrations.set(id, registration)
      return Response.json({ id, secret: registration.secret }, { status: 201 })
    }
    const hook = /^\/api\/webhooks\/([^/]+)$/.exec(path)
    if (hook && request.method === 'DELETE') {
      if (!registrations.delete(hook[1])) return new Response('no such webhook', { status: 404 })
      removed.push(hook[1])
      return new Response(null, { status: 204 })
    }
    const reply = /^\/api\/tickets\/([^/]+)\/replies$/.exec(path)
    if (reply && request.method === 'POST') {
      const key = request.headers.get('idempotency-key') ?? ''
      const index = replies.findIndex((r) => r.key === key)
      if (index >= 0) return Response.json({ id: `rp_${index + 1}` }, { status: 201 })
      const { agent, text } = (await request.json()) as { agent: string; text: string }
      replies.push({ ticketId: decodeURIComponent(reply[1]), agent, text, key, token })
      return Response.json({ id: `rp_${replies.length}` }, { status: 201 })
    }
    return new Response('not found', { status: 404 })
  }

  async function oauth(request: Request, url: URL): Promise<Response> {
    if (url.pathname === '/oauth/authorize')
      return new Response(null, { status: 302, headers: { location: `${issuer}/auth${url.search}` } })
    const headers = new Headers(request.headers)
    headers.delete('host')
    return fetch(`${issuer}/token`, { method: 'POST', headers, body: await request.text() })
  }

  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url)
      if (url.pathname.startsWith('/oauth/')) return oauth(request, url)
      if (expire) {
        expire = false
        return Response.json({ error: { code: 'token_expired' } })
      }
      const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1]
      if (!token || !(await isActive(token))) return Response.json({ error: 'invalid_token' }, { status: 401 })
      return api(request, url, token)
    },
  })

  return {
    url: `http://127.0.0.1:${server.port}`,
    tickets,
    registrations,
    replies,
    removed,
    open(subject, queue = 'support') {
      const number = tickets.length + 1
      const ticket = {
        id: `tk_${number}`,
        number,
        subject,
        queue,
        requester: 'customer@example.com',
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, number)).toISOString(),
        status: 'open',
      }
      tickets.push(ticket)
      return ticket
    },
    update(ticketId, status) {
      const ticket = tickets.find((t) => t.id === ticketId)
      if (!ticket) throw new Error(`no ticket ${ticketId}`)
      ticket.status = status
      const rawBody = JSON.stringify({
        id: `ev_${++events}`,
        type: 'ticket.updated',
        ticket: { id: ticket.id, status, queue: ticket.queue },
        changes: ['status'],
      })
      return [...registrations.values()].map((r) => ({
        url: r.url,
        rawBody,
        headers: {
          'content-type': 'application/json',
          'x-helpdesk-signature': createHmac('sha256', r.secret).update(rawBody).digest('hex'),
        },
      }))
    },
    expireNext() {
      expire = true
    },
    stop: () => void server.stop(true),
  }
}
