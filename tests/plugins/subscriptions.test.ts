/**
 * Trigger subscriptions (onEnable/onDisable) against a local platform, on a manual clock: a
 * publish enables each trigger instance once with its webhook URL, re-publishing it unchanged
 * keeps it, a changed node is enabled anew before the old one is disabled; a refusal answers 400
 * with the plugin's message and an unreachable platform 502, and nothing goes live; a pause
 * answers at once while onDisable is retried with backoff, then given up after a day; a webhook
 * signed with the secret the subscription stored is verified; the state is listed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createManualClock } from '../../core/ports/clock.ts'
import { definePlugin, defineTrigger, defineWebhook, TriggerEvent, Type } from '../../core/plugin/sdk.ts'
import { hmacSha256, toHex } from '../../core/security/hash.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, createWorkflow, waitForRun } from '../helpers/workflows.ts'

const START = Date.parse('2026-03-01T00:00:00Z')
const PUBLIC_URL = 'https://automaton.example'
const DAY = 24 * 60 * 60_000

/** The platform: registers subscriptions (POST), deletes them (DELETE), or refuses as told. */
function startPlatform() {
  const state = {
    subscriptions: new Map<string, { url: string; channel: string; secret: string }>(),
    enables: [] as { url: string; channel: string }[],
    /** The subscription id each onEnable found in its store (a renewal's). */
    previous: [] as (string | null)[],
    deletes: 0,
    /** What the platform was asked, in order: `enable:<channel>`, `delete:<channel>`. */
    log: [] as string[],
    refuse: null as string | null,
    failDeletes: false,
    next: 0,
  }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const path = new URL(request.url).pathname
      if (request.method === 'POST' && path === '/subscriptions') {
        const { previous, ...body } = (await request.json()) as {
          url: string
          channel: string
          previous: string | null
        }
        state.enables.push(body)
        state.previous.push(previous)
        state.log.push(`enable:${body.channel}`)
        if (state.refuse) return Response.json({ message: state.refuse }, { status: 422 })
        const id = `s${++state.next}`
        const secret = `secret-${id}`
        state.subscriptions.set(id, { ...body, secret })
        return Response.json({ id, secret }, { status: 201 })
      }
      if (request.method === 'DELETE' && path.startsWith('/subscriptions/')) {
        state.deletes++
        state.log.push(`delete:${state.subscriptions.get(path.slice('/subscriptions/'.length))?.channel}`)
        if (state.failDeletes) return new Response('busy', { status: 503 })
        state.subscriptions.delete(path.slice('/subscriptions/'.length))
        return new Response(null, { status: 204 })
      }
      return new Response('not found', { status: 404 })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, state, stop: () => server.stop(true) }
}

const onChannel = defineTrigger({
  type: 'subhook-message',
  name: 'Message',
  description: 'A message in a channel of the test platform.',
  payload: Type.Object({ platform: Type.String(), channel: Type.String(), ttlMs: Type.Optional(Type.Integer()) }),
  result: TriggerEvent(Type.Object({ channel: Type.String(), text: Type.String() })),
  matches: (config, { body }) => config.channel === body.channel,
  async onEnable(ctx) {
    const response = await ctx.http.send({
      method: 'POST',
      url: `${ctx.payload.platform}/subscriptions`,
      headers: { 'content-type': 'application/json' },
      // A renewal finds the store of the subscription it renews.
      body: JSON.stringify({ url: ctx.webhookUrl, channel: ctx.payload.channel, previous: await ctx.store.get('id') }),
    })
    if (response.status !== 201) throw new Error(JSON.parse(response.body).message)
    const created = JSON.parse(response.body) as { id: string; secret: string }
    await ctx.store.set('id', created.id)
    await ctx.store.set('secret', created.secret)
    return ctx.payload.ttlMs ? { expiresAt: ctx.now() + ctx.payload.ttlMs } : undefined
  },
  async onDisable(ctx) {
    const id = await ctx.store.get('id')
    const response = await ctx.http.send({ method: 'DELETE', url: `${ctx.payload.platform}/subscriptions/${id}` })
    if (response.status >= 300) throw new Error(`the platform answered ${response.status}`)
  },
})

const events = defineWebhook({
  name: 'events',
  description: 'Messages of the test platform, signed with the subscription secret',
  path: '/v1/orgs/:orgId/integrations/subhook',
  auth: { kind: 'subscription', key: 'secret' },
  async verify(request, ctx) {
    const expected = await ctx.crypto.hmacSha256(ctx.secret!, request.rawBody)
    return ctx.crypto.safeEqual(expected, request.headers['x-signature'] ?? '')
      ? { ok: true }
      : { ok: false, status: 401, reason: 'the signature does not match' }
  },
  receive(request) {
    const body = request.body as { id: string; channel: string; text: string }
    return {
      events: [{ triggerType: 'subhook-message', eventId: body.id, body: { channel: body.channel, text: body.text } }],
    }
  },
})

const plugin = definePlugin({ id: 'subhook', triggers: [onChannel], webhooks: [events] })

const flow = (platform: string, channel: string, extra: Record<string, unknown> = {}) => ({
  definition: {
    triggerNodeIds: ['root'],
    nodes: {
      root: { type: 'subhook-message', payload: { platform, channel, ...extra }, children: ['say'] },
      say: { type: 'log', payload: { message: '{{root.result.body.text}}' } },
    },
  },
})

for (const kind of storeKinds()) {
  describe(`trigger subscriptions (${kind})`, () => {
    let t: TestSystem
    let platform: ReturnType<typeof startPlatform>
    const clock = createManualClock(START)
    beforeAll(async () => {
      platform = startPlatform()
      t = await openTestSystem(
        kind,
        { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1', AUTOMATON_PUBLIC_URL: PUBLIC_URL },
        { clock, plugins: [plugin] },
      )
    })
    afterAll(async () => {
      await t.close()
      platform.stop()
    })

    const subscriptions = async (id: string) =>
      (await t.call('GET', `/v1/workflows/${id}/subscriptions`)).body.data.subscriptions as any[]
    const tick = () => t.system.engine.subscriptions.tick()
    const reset = () => {
      Object.assign(platform.state, {
        enables: [],
        previous: [],
        log: [],
        deletes: 0,
        refuse: null,
        failDeletes: false,
      })
    }

    it('enables a trigger once at publish with its webhook URL, and keeps it across an unchanged re-publish', async () => {
      reset()
      const w = await createLive(t, flow(platform.url, 'general'))
      expect(platform.state.enables).toEqual([
        { url: `${PUBLIC_URL}/v1/orgs/${t.orgId}/integrations/subhook`, channel: 'general' },
      ])
      const [sub] = await subscriptions(w.id)
      expect(sub).toMatchObject({ triggerNodeId: 'root', type: 'subhook-message', state: 'enabled', attempts: 0 })
      expect(JSON.stringify(sub)).not.toContain('secret-')

      // A new draft with the trigger unchanged: published, no second onEnable, the same subscription.
      expect((await t.call('PUT', `/v1/workflows/${w.id}`, { body: { description: 'same trigger' } })).status).toBe(200)
      expect((await t.call('POST', `/v1/workflows/${w.id}/publish`)).status).toBe(200)
      await tick()
      expect(platform.state.enables.length).toBe(1)
      expect((await subscriptions(w.id)).map((s) => [s.id, s.state])).toEqual([[sub.id, 'enabled']])
    })

    it('enables a changed trigger node before disabling the old one', async () => {
      reset()
      const w = await createLive(t, flow(platform.url, 'one'))
      const changed = flow(platform.url, 'two')
      expect((await t.call('PUT', `/v1/workflows/${w.id}`, { body: changed })).status).toBe(200)
      expect((await t.call('POST', `/v1/workflows/${w.id}/publish`)).status).toBe(200)
      // Published with the new one enabled; the old one is disabled after, in the background.
      await tick()
      expect(platform.state.log).toEqual(['enable:one', 'enable:two', 'delete:one'])
      expect((await subscriptions(w.id)).map((s) => s.state)).toEqual(['disabled', 'enabled'])
      expect([...platform.state.subscriptions.values()].some((s) => s.channel === 'one')).toBe(false)
    })

    it("refuses the publish with the plugin's message (400), and nothing goes live", async () => {
      reset()
      platform.state.refuse = 'channel #secret is private'
      const w = await createWorkflow(t, flow(platform.url, 'secret'))
      const r = await t.call('POST', `/v1/workflows/${w.id}/publish`)
      expect(r.status).toBe(400)
      expect(r.body.message).toBe('channel #secret is private')
      const after = (await t.call('GET', `/v1/workflows/${w.id}`)).body.data
      expect(after.status).toBe('draft')
      expect(await subscriptions(w.id)).toEqual([])
    })

    it('answers 502 when the platform cannot be reached, and nothing goes live', async () => {
      reset()
      const w = await createWorkflow(t, flow('http://127.0.0.1:1', 'general'))
      const r = await t.call('POST', `/v1/workflows/${w.id}/publish`)
      expect(r.status).toBe(502)
      expect(r.body.message).toContain('could not be reached')
      expect((await t.call('GET', `/v1/workflows/${w.id}`)).body.data.status).toBe('draft')
    })

    it('verifies a webhook signed with the secret the subscription stored, and starts the run', async () => {
      reset()
      const w = await createLive(t, flow(platform.url, 'hooks'))
      const secret = [...platform.state.subscriptions.values()].find((s) => s.channel === 'hooks')!.secret
      const rawBody = JSON.stringify({ id: 'ev-1', channel: 'hooks', text: 'hello' })
      const post = async (key: string) =>
        t.call('POST', `/v1/orgs/${t.orgId}/integrations/subhook`, {
          key: null,
          rawBody,
          headers: { 'content-type': 'application/json', 'x-signature': toHex(await hmacSha256(key, rawBody)) },
        })
      expect((await post('not-the-secret')).status).toBe(401)
      const ok = await post(secret)
      expect(ok.status).toBe(200)
      expect(ok.body.action).toBe('triggered')
      const run = await waitForRun(t, ok.body.runIds[0])
      expect(run.workflowId).toBe(w.id)
      expect(run.nodes.say.result.message).toBe('hello')
    })

    it('pauses at once, retries onDisable with backoff, and gives it up after a day', async () => {
      reset()
      const w = await createLive(t, flow(platform.url, 'pausing'))
      platform.state.failDeletes = true
      const paused = await t.call('POST', `/v1/workflows/${w.id}/pause`)
      expect(paused.status).toBe(200)
      expect(paused.body.data.status).toBe('paused')
      await tick()
      expect(platform.state.deletes).toBe(1)
      const first = (await subscriptions(w.id))[0]
      expect(first).toMatchObject({ state: 'disabling', attempts: 1, lastError: 'the platform answered 503' })
      expect(Date.parse(first.nextAttemptAt) - clock.now()).toBe(30_000)
      clock.advance(29_000)
      await tick()
      expect(platform.state.deletes).toBe(1)
      clock.advance(1_000)
      await tick()
      expect(platform.state.deletes).toBe(2)
      expect(Date.parse((await subscriptions(w.id))[0].nextAttemptAt) - clock.now()).toBe(60_000)

      const pausedAt = clock.now() - 30_000
      for (let i = 0; i < 100; i++) {
        const [sub] = await subscriptions(w.id)
        if (sub.state !== 'disabling') break
        clock.set(Date.parse(sub.nextAttemptAt))
        await tick()
      }
      const [given] = await subscriptions(w.id)
      expect(given).toMatchObject({ state: 'failed', nextAttemptAt: '', lastError: 'the platform answered 503' })
      expect(clock.now() - pausedAt).toBe(DAY)
      expect(platform.state.deletes).toBeGreaterThan(20)
      expect(platform.state.deletes).toBeLessThan(40)
    })

    it('renews a subscription before the expiry onEnable declared, with the same store', async () => {
      reset()
      const w = await createLive(t, flow(platform.url, 'renewing', { ttlMs: 100_000 }))
      const [sub] = await subscriptions(w.id)
      expect(Date.parse(sub.expiresAt) - clock.now()).toBe(100_000)
      expect(Date.parse(sub.nextAttemptAt) - clock.now()).toBe(80_000)
      clock.advance(79_000)
      await tick()
      expect(platform.state.enables.length).toBe(1)
      clock.advance(1_000)
      await tick()
      expect(platform.state.enables.length).toBe(2)
      expect(platform.state.previous).toEqual([null, `s${platform.state.next - 1}`])
      const [renewed] = await subscriptions(w.id)
      expect(renewed).toMatchObject({ id: sub.id, state: 'enabled' })
      expect(Date.parse(renewed.expiresAt) - clock.now()).toBe(100_000)
    })

    it('disables on archive and enables again on unarchive', async () => {
      reset()
      const w = await createLive(t, flow(platform.url, 'archive'))
      expect((await t.call('DELETE', `/v1/workflows/${w.id}`)).status).toBe(200)
      await tick()
      expect(platform.state.deletes).toBe(1)
      expect((await t.call('POST', `/v1/workflows/${w.id}/unarchive`)).status).toBe(200)
      expect(platform.state.enables.length).toBe(2)
      expect((await subscriptions(w.id)).map((s) => s.state)).toEqual(['disabled', 'enabled'])
    })

    it('registers the chat platform event subscription of a chatapp trigger, and deletes it on pause', async () => {
      const calls: string[] = []
      const chat = Bun.serve({
        port: 0,
        hostname: '127.0.0.1',
        async fetch(request) {
          const path = new URL(request.url).pathname
          calls.push(`${request.method} ${path} ${request.headers.get('authorization')}`)
          if (request.method === 'POST' && path === '/api/event-subscriptions') {
            const body = (await request.json()) as { url: string; teamId: string }
            calls.push(`${body.teamId} ${body.url}`)
            return Response.json({ id: 'ES1', secret: 'chat-secret' }, { status: 201 })
          }
          if (request.method === 'DELETE' && path === '/api/event-subscriptions/ES1')
            return new Response(null, { status: 204 })
          return Response.json({ ok: true })
        },
      })
      try {
        const connector = await t.call('POST', '/v1/connectors', {
          body: {
            type: 'chatapp',
            name: 'subscribing team',
            data: { teamId: 'TSUB', botToken: 'xoxb-sub', apiBaseUrl: `http://127.0.0.1:${chat.port}/api` },
          },
        })
        expect(connector.status).toBe(200)
        const w = await createLive(t, {
          definition: {
            triggerNodeIds: ['root'],
            nodes: {
              root: {
                type: 'chatapp-new-user-added',
                payload: {},
                connector: { type: 'chatapp', id: connector.body.data.id },
                children: [],
              },
            },
          },
        })
        expect(calls).toContain('POST /api/event-subscriptions Bearer xoxb-sub')
        expect(calls).toContain(`TSUB ${PUBLIC_URL}/v1/integrations/chatapp/events`)
        expect((await subscriptions(w.id)).map((s) => s.state)).toEqual(['enabled'])
        expect((await t.call('POST', `/v1/workflows/${w.id}/pause`)).status).toBe(200)
        await tick()
        expect(calls).toContain('DELETE /api/event-subscriptions/ES1 Bearer xoxb-sub')
        expect((await subscriptions(w.id)).map((s) => s.state)).toEqual(['disabled'])
      } finally {
        chat.stop(true)
      }
    })
  })
}
