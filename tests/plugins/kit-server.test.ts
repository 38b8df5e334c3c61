/**
 * The kit's server: a plugin defined here (a polling trigger against a local feed, and an
 * integration webhook signed with HMAC) runs on the real composition; time moves only when the
 * test advances it, and webhooks go through the server's own routing and deduplication.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createTestServer, nextTicks, runPoll, type TestServer } from '../../runtime/testing/index.ts'
import { cronjob } from '../../plugins/builtin/triggers/cronjob.ts'
import { feedItem } from '../../plugins/feed/index.ts'
import {
  definePlugin,
  defineConnector,
  defineTrigger,
  defineWebhook,
  Secret,
  TriggerEvent,
  Type,
} from '../../core/plugin/sdk.ts'

const Item = Type.Object({ id: Type.String(), title: Type.String() })

const connector = defineConnector({
  type: 'kitfeed',
  name: 'Kit feed',
  description: 'A feed service of the kit test',
  provider: 'Kit',
  data: Type.Object({ webhookSecret: Secret() }),
})

const newItem = defineTrigger({
  type: 'kitfeed-item',
  name: 'New item',
  description: 'A new item of the feed',
  tags: ['feed'],
  payload: Type.Object({ url: Type.String() }),
  result: TriggerEvent(Item),
  poll: {
    intervalMs: 10_000,
    async poll(ctx) {
      const response = await ctx.http.send({ method: 'GET', url: ctx.payload.url })
      const items = JSON.parse(response.body) as { id: string; title: string }[]
      return { items: items.map((item) => ({ key: item.id, body: item })) }
    },
  },
})

const pushed = defineTrigger({
  type: 'kitfeed-pushed',
  name: 'Pushed item',
  description: 'An item the feed service pushes',
  tags: ['feed'],
  connector: { type: 'kitfeed' },
  payload: Type.Object({}),
  result: TriggerEvent(Item),
})

const events = defineWebhook({
  name: 'events',
  description: 'Items the feed service pushes, signed in X-Kit-Signature',
  path: '/v1/orgs/:orgId/integrations/kitfeed',
  auth: { kind: 'connector', connector },
  async verify(request, ctx) {
    const expected = await ctx.crypto.hmacSha256(ctx.connector?.webhookSecret ?? '', request.rawBody)
    return ctx.crypto.safeEqual(expected, request.headers['x-kit-signature'] ?? '')
      ? { ok: true }
      : { ok: false, status: 401, reason: 'bad signature' }
  },
  receive(request) {
    const body = request.body as { id: string; title: string }
    return { events: [{ triggerType: 'kitfeed-pushed', eventId: body.id, body }] }
  },
})

const plugin = definePlugin({
  id: 'kitfeed',
  name: 'Kit feed',
  version: '1.0.0',
  connector,
  triggers: [newItem, pushed],
  webhooks: [events],
})

const flow = (type: string, payload: Record<string, unknown>) => ({
  triggerNodeIds: ['root'],
  nodes: {
    root: { type, payload, children: ['say'] },
    say: { type: 'log', payload: { message: 'got {{$trigger.body.title}}' } },
  },
})

const SECRET = 'whs_kit_0123456789'
const sign = (raw: string) =>
  crypto.subtle
    .importKey('raw', new TextEncoder().encode(SECRET), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
    .then((key) => crypto.subtle.sign('HMAC', key, new TextEncoder().encode(raw)))
    .then((mac) => ({ 'x-kit-signature': Buffer.from(mac).toString('hex') }))

describe("the kit's server", () => {
  let server: TestServer
  const feed: { id: string; title: string }[] = [{ id: 'a', title: 'first' }]
  const platform = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => Response.json(feed) })

  beforeAll(async () => {
    server = await createTestServer({ plugins: [plugin] })
  })
  afterAll(async () => {
    await server?.close()
    platform.stop(true)
  })

  it('starts exactly one run per new item of a polling trigger as time advances', async () => {
    const wf = await server.publish(flow('kitfeed-item', { url: `http://127.0.0.1:${platform.port}/items` }))
    // The first poll records what is already there and starts nothing.
    await server.advance(1000)
    expect(await server.runs(wf.id)).toEqual([])
    feed.push({ id: 'b', title: 'second' })
    await server.advance(10_000)
    await server.advance(10_000)
    const [run, ...rest] = await server.runs(wf.id)
    expect(rest).toEqual([])
    const detail = await server.run(run.id)
    expect(detail).toMatchObject({ status: 'success', triggerType: 'kitfeed-item' })
    expect(detail.nodes.say).toMatchObject({ result: { message: 'got second' } })
    feed.push({ id: 'c', title: 'third' }, { id: 'd', title: 'fourth' })
    await server.advance(10_000)
    expect(await server.runs(wf.id)).toHaveLength(3)
  })

  it('deduplicates a signed webhook by event id and refuses a bad signature', async () => {
    await server.connectors.create('kitfeed', { webhookSecret: SECRET })
    const wf = await server.publish(flow('kitfeed-pushed', {}))
    const body = { id: 'evt_1', title: 'pushed' }
    const first = await server.deliver('events', { body, sign })
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ action: 'triggered', runIds: [expect.any(String)] })
    const again = await server.deliver(`/v1/orgs/:orgId/integrations/kitfeed`, { body, sign })
    expect(again.body).toMatchObject({ action: 'skipped' })
    const runs = await server.runs(wf.id)
    expect(runs).toHaveLength(1)
    expect((await server.run(runs[0].id)).nodes.say).toMatchObject({ result: { message: 'got pushed' } })
    const forged = await server.deliver('events', {
      body: { id: 'evt_2', title: 'x' },
      headers: { 'x-kit-signature': 'ab' },
    })
    expect(forged.status).toBe(401)
    expect(await server.runs(wf.id)).toHaveLength(1)
  })
})

describe("the kit's helpers for time-based and polling triggers", () => {
  it('lists the occurrences of a time-based trigger', () => {
    const after = Date.parse('2030-01-01T00:07:00Z')
    expect(
      nextTicks(cronjob, { expression: '*/15 * * * *' }, { after, count: 3 }).map((t) => new Date(t).toISOString()),
    ).toEqual(['2030-01-01T00:15:00.000Z', '2030-01-01T00:30:00.000Z', '2030-01-01T00:45:00.000Z'])
    expect(() => nextTicks(feedItem, { url: 'https://blog.example/rss' })).toThrow('not a time-based trigger')
  })

  it('polls once and tells the fresh items from the seen ones', async () => {
    const rss = (ids: string[]) =>
      `<rss version="2.0"><channel><title>b</title>${ids.map((id) => `<item><guid>${id}</guid><title>${id}</title></item>`).join('')}</channel></rss>`
    const out = await runPoll(feedItem, {
      payload: { url: 'https://blog.example/rss' },
      seen: ['a'],
      http: () => new Response(rss(['a', 'b']), { headers: { etag: '"v2"' } }),
    })
    // A feed lists the newest first; items come oldest first.
    expect(out.items.map((i) => i.key)).toEqual(['b', 'a'])
    expect(out.fresh.map((i) => i.key)).toEqual(['b'])
    expect(out.cursor).toMatchObject({ etag: '"v2"' })
    expect(out.requests[0]).toMatchObject({ method: 'GET', url: 'https://blog.example/rss' })
    const unchanged = await runPoll(feedItem, {
      payload: { url: 'https://blog.example/rss' },
      cursor: out.cursor,
      http: (request) => new Response(null, { status: request.headers?.['if-none-match'] === '"v2"' ? 304 : 200 }),
    })
    expect(unchanged).toMatchObject({ items: [], fresh: [], cursor: { etag: '"v2"' } })
  })
})
