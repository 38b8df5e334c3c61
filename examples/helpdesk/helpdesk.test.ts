/**
 * The help-desk plugin on the kit's server, against a stand-in help desk whose OAuth2 endpoints
 * hand over to a real OAuth2 server: each part end to end, as a user of the plugin sees it.
 * Run: bun test ./examples/helpdesk/helpdesk.test.ts
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createTestServer, loadPlugin, type TestServer } from 'automaton/testing'
import { type TestIdentityProvider, startIdentityProvider } from '../../tests/helpers/identity-provider.ts'
import helpdesk from './plugin/index.ts'
import { type HelpdeskPlatform, startHelpdesk } from './testing/platform.ts'

const PUBLIC_URL = 'https://automaton.example.test'
const CALLBACK = `${PUBLIC_URL}/v1/connectors/oauth2/callback`

const withLog = (type: string, payload: Record<string, unknown>) => ({
  triggerNodeIds: ['root'],
  nodes: {
    root: { type, payload, children: ['say'] },
    say: { type: 'log', payload: { message: '{{$trigger.body.id}}' } },
  },
})

describe('the help-desk plugin', () => {
  let provider: TestIdentityProvider
  let platform: HelpdeskPlatform
  let server: TestServer
  let connectorId: string

  beforeAll(async () => {
    provider = await startIdentityProvider(CALLBACK)
    platform = startHelpdesk(provider.issuer, async (token) => (await provider.introspect(token)).active)
    const { plugin } = await loadPlugin(helpdesk)
    server = await createTestServer({ plugins: [plugin], env: { AUTOMATON_PUBLIC_URL: PUBLIC_URL } })
    const connector = await server.connectors.create('helpdesk', {
      siteUrl: platform.url,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
    })
    connectorId = connector.id
  })
  afterAll(async () => {
    await server?.close()
    platform?.stop()
    await provider?.stop()
  })

  it('signs in with the authorization code and PKCE, then passes its check', async () => {
    expect((await server.call('POST', `/v1/connectors/${connectorId}/test`)).body).toMatchObject({
      data: { ok: false },
    })
    const start = await server.call<{ data: { authorizationUrl: string } }>(
      'GET',
      `/v1/connectors/${connectorId}/oauth2/start?redirect=false`,
    )
    const authorization = new URL(start.body.data.authorizationUrl)
    expect(`${authorization.origin}${authorization.pathname}`).toBe(`${platform.url}/oauth/authorize`)
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256')
    const back = await provider.authorize(authorization.toString(), CALLBACK)
    expect((await server.call('GET', `${back.pathname}${back.search}`)).status).toBe(303)
    expect((await server.call('POST', `/v1/connectors/${connectorId}/test`)).body).toMatchObject({
      data: { ok: true, message: 'signed in as Automaton bot' },
    })
  })

  it('starts one run per new ticket, never for the ones already there', async () => {
    platform.open('already open')
    const wf = await server.publish(withLog('helpdesk-new-ticket', {}))
    await server.advance(1_000)
    expect(await server.runs(wf.id)).toEqual([])
    const first = platform.open('printer on fire')
    const second = platform.open('cannot log in', 'billing')
    await server.advance(60_000)
    await server.advance(60_000)
    const runs = await Promise.all((await server.runs(wf.id)).map((r) => server.run(r.id)))
    expect(runs.map((r) => r.nodes.say.result)).toEqual([{ message: first.id }, { message: second.id }])
    const polls = await server.call<{ data: { triggers: unknown[] } }>('GET', `/v1/workflows/${wf.id}/polls`)
    expect(polls.body.data.triggers).toEqual([
      expect.objectContaining({ cursor: { after: second.number }, lastError: '' }),
    ])
    await server.call('POST', `/v1/workflows/${wf.id}/pause`)
  })

  it('registers its webhook when live, runs on a signed update, and removes it when paused', async () => {
    const ticket = platform.open('slow dashboard', 'support')
    const wf = await server.publish(withLog('helpdesk-ticket-updated', { queue: 'support' }))
    const [registration] = [...platform.registrations.values()]
    expect(registration.url).toBe(`${PUBLIC_URL}/v1/orgs/${server.organizationId}/integrations/helpdesk`)

    const [update] = platform.update(ticket.id, 'solved')
    const path = new URL(update.url).pathname
    const answer = await server.deliver(path, { rawBody: update.rawBody, headers: update.headers })
    expect(answer).toMatchObject({ status: 200, body: { action: 'triggered' } })
    const [run] = await server.runs(wf.id)
    expect((await server.run(run.id)).nodes.say.result).toEqual({ message: ticket.id })

    const [forged] = platform.update(ticket.id, 'open')
    const refused = await server.deliver(path, {
      rawBody: forged.rawBody,
      headers: { ...forged.headers, 'x-helpdesk-signature': '0'.repeat(64) },
    })
    expect(refused.status).toBe(401)
    expect(await server.runs(wf.id)).toHaveLength(1)

    expect((await server.call('POST', `/v1/workflows/${wf.id}/pause`)).status).toBe(200)
    await server.advance(0)
    expect(platform.removed).toEqual([registration.id])
    expect(platform.registrations.size).toBe(0)
  })

  it("offers the help desk's agents in pages, with search", async () => {
    const ask = (body: Record<string, unknown>) =>
      server.call<{
        data: { items: { label: string; value: string }[]; nextCursor: string; selected: unknown }
      }>('POST', '/v1/catalog/actions/helpdesk-reply/options', { field: 'agent', connectorId, values: {}, ...body })
    const first = (await ask({})).body.data
    expect(first.items).toHaveLength(10)
    expect(first.items[0]).toEqual({ label: 'Ada 1', value: 'ag_1' })
    expect(first.nextCursor).toBe('2')
    const last = (await ask({ cursor: '3' })).body.data
    expect(last).toEqual({ items: expect.any(Array), nextCursor: '', selected: null })
    expect(last.items).toHaveLength(5)
    const found = (await ask({ search: 'grace', values: { agent: 'ag_2' } })).body
    expect(found).toMatchObject({ data: { nextCursor: '', selected: { value: 'ag_2', offered: true } } })
    expect(found.data.items.map((i) => i.label)).toEqual(['Grace 2', 'Grace 7', 'Grace 12', 'Grace 17', 'Grace 22'])
  })

  it("replies with the connector's token, renewed when the help desk says it expired", async () => {
    const ticket = platform.open('where is my invoice')
    const wf = await server.publish({
      triggerNodeIds: ['root'],
      nodes: {
        root: { type: 'manual', payload: {}, children: ['reply'] },
        reply: { type: 'helpdesk-reply', payload: { ticketId: ticket.id, agent: 'ag_3', text: 'On its way.' } },
      },
    })
    const reply = async () => {
      const started = await server.call<{ data: { runId: string } }>('POST', `/v1/workflows/${wf.id}/run`, {})
      await server.settle()
      return server.run(started.body.data.runId)
    }
    expect((await reply()).nodes.reply).toMatchObject({ status: 'success', result: { replyId: 'rp_1' } })
    const sent = platform.replies[0]
    expect(sent).toMatchObject({ ticketId: ticket.id, agent: 'ag_3', text: 'On its way.' })
    expect(sent.key).toMatch(/^[0-9a-f]{64}$/)
    expect((await provider.introspect(sent.token)).active).toBe(true)

    platform.expireNext()
    expect((await reply()).nodes.reply).toMatchObject({ status: 'success', result: { replyId: 'rp_2' } })
    expect(provider.grants).toContain('refresh_token')
    expect(platform.replies[1].token).not.toBe(sent.token)
  })
})
