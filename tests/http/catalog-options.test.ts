/** Dynamic options: a payload field's allowed values, loaded by its plugin, paged, searched, cached and checked against the selection. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { checkAction } from '../../core/plugin/checks.ts'
import { defineAction, definePlugin, Type } from '../../core/plugin/sdk.ts'
import { createSkewedClock } from '../helpers/clock.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

const CHANNELS = [
  { id: 'C1', name: 'general' },
  { id: 'C2', name: 'random' },
  { id: 'C3', name: 'devops' },
  { id: 'C4', name: 'design' },
  { id: 'C5', name: 'dev-chat' },
]

/** The chat platform's Web API: two channels a page, and every call counted. */
function startPlatform() {
  const calls: string[] = []
  let channels = CHANNELS
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request) {
      const url = new URL(request.url)
      calls.push(`${url.pathname}${url.search}`)
      if (request.headers.get('authorization') !== 'Bearer xoxb-good')
        return Response.json({ ok: false, error: 'invalid_auth' })
      if (url.pathname === '/api/auth.test') return Response.json({ ok: true, team_id: 'T1' })
      const start = Number(url.searchParams.get('cursor') ?? 0)
      const next = start + 2 < channels.length ? String(start + 2) : ''
      return Response.json({
        ok: true,
        channels: channels.slice(start, start + 2),
        response_metadata: { next_cursor: next },
      })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/api`,
    calls,
    setChannels: (next: typeof CHANNELS) => {
      channels = next
    },
    stop: () => server.stop(true),
  }
}

/** An action whose loaders fail in each way the endpoint reports. */
const failing = defineAction({
  type: 'options-failing',
  name: 'Failing options',
  description: 'Loaders that fail',
  payload: Type.Object({ refused: Type.Optional(Type.String()), unreachable: Type.Optional(Type.String()) }),
  result: Type.Any(),
  run: () => ({}),
  options: {
    refused: () => {
      throw new Error('pick a workspace first')
    },
    unreachable: async (ctx) => {
      await ctx.http.send({ method: 'GET', url: 'http://127.0.0.1:9/nothing-listens-here' })
      return { items: [] }
    },
  },
})
const failingPlugin = definePlugin({ id: 'options-failing', actions: [failing] })

/** An action whose loaders serve fields inside an object and inside an array's items. */
const nested = defineAction({
  type: 'options-nested',
  name: 'Nested options',
  description: 'Loaders of nested fields',
  payload: Type.Object({
    workspace: Type.String(),
    target: Type.Optional(Type.Object({ board: Type.String() })),
    routes: Type.Array(Type.Object({ channel: Type.String(), note: Type.Optional(Type.String()) })),
  }),
  result: Type.Any(),
  run: () => ({}),
  options: {
    'target.board': (ctx) => ({ items: [{ label: `${ctx.values.workspace} roadmap`, value: 'B1' }] }),
    'routes[].channel': (ctx) => ({
      items: [
        { label: `${ctx.values.workspace}/general`, value: 'C1' },
        { label: `${ctx.values.workspace}/${(ctx.values.routes as unknown[]).length} routes`, value: 'C2' },
      ],
    }),
  },
})
const nestedPlugin = definePlugin({ id: 'options-nested', actions: [nested] })

for (const kind of storeKinds()) {
  describe(`dynamic options (${kind})`, () => {
    let t: TestSystem
    let platform: ReturnType<typeof startPlatform>
    const clock = createSkewedClock()
    let connectorId: string
    const options = (body: Record<string, unknown>, type = 'chatapp-mentions', key?: string) =>
      t.call('POST', `/v1/catalog/triggers/${type}/options`, { body, key })

    beforeAll(async () => {
      platform = startPlatform()
      t = await openTestSystem(
        kind,
        { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1' },
        { clock, plugins: [failingPlugin, nestedPlugin] },
      )
      const created = await t.call('POST', '/v1/connectors', {
        body: {
          type: 'chatapp',
          name: 'team',
          data: { teamId: 'T1', botToken: 'xoxb-good', apiBaseUrl: platform.url },
        },
      })
      expect(created.status).toBe(200)
      connectorId = created.body.data.id
    })
    afterAll(async () => {
      await t.close()
      platform.stop()
    })

    it('marks the fields with options in the catalog', async () => {
      const entry = (await t.call('GET', '/v1/triggers/chatapp-mentions')).body.data
      expect(entry.payloadSchema.properties.channelIds['x-dynamic-options']).toBe(true)
      const plain = (await t.call('GET', '/v1/triggers/chatapp-new-user-added')).body.data
      expect(JSON.stringify(plain.payloadSchema)).not.toContain('x-dynamic-options')
    })

    it('marks and loads fields inside objects and array items, named by their path', async () => {
      const entry = (await t.call('GET', '/v1/actions/options-nested')).body.data
      const schema = entry.payloadSchema
      expect(schema.properties.target.properties.board['x-dynamic-options']).toBe(true)
      expect(schema.properties.routes.items.properties.channel['x-dynamic-options']).toBe(true)
      expect(schema.properties.routes.items.properties.note['x-dynamic-options']).toBeUndefined()
      const load = (field: string, values: Record<string, unknown>) =>
        t.call('POST', '/v1/catalog/actions/options-nested/options', { body: { field, values } })
      const routes = [{ channel: 'C2' }, { channel: '' }]
      const channels = await load('routes[].channel', { workspace: 'ops', routes, 'routes[].channel': 'C2' })
      expect(channels.status).toBe(200)
      expect(channels.body.data).toEqual({
        items: [
          { label: 'ops/general', value: 'C1' },
          { label: 'ops/2 routes', value: 'C2' },
        ],
        nextCursor: '',
        selected: { value: 'C2', offered: true },
      })
      const board = await load('target.board', { workspace: 'ops' })
      expect(board.body.data).toMatchObject({ items: [{ label: 'ops roadmap', value: 'B1' }], selected: null })
      expect((await load('routes[].note', { workspace: 'ops' })).status).toBe(404)
    })

    it('refuses a plugin whose option loader names no field, nested or not', () => {
      const badPath = (field: string) =>
        definePlugin({
          id: 'options-bad',
          actions: [{ ...nested, type: 'options-bad', options: { [field]: () => ({ items: [] }) } }],
        })
      for (const field of ['routes.channel', 'target[].board', 'routes[].missing', 'nope', 'routes[].channel.x'])
        expect(() => checkAction('options-bad', badPath(field).actions![0])).toThrow('names no payload field')
      expect(checkAction('options-bad', badPath('routes[].channel').actions![0])).toBeNull()
    })

    it('pages through the channels with the cursor the plugin hands back', async () => {
      const first = await options({ field: 'channelIds', connectorId })
      expect(first.status).toBe(200)
      expect(first.body.data).toEqual({
        items: [
          { label: '#general', value: 'C1' },
          { label: '#random', value: 'C2' },
        ],
        nextCursor: '2',
        selected: null,
      })
      const second = await options({ field: 'channelIds', connectorId, cursor: '2' })
      expect(second.body.data.items.map((i: { value: string }) => i.value)).toEqual(['C3', 'C4'])
      const last = await options({ field: 'channelIds', connectorId, cursor: '4' })
      expect(last.body.data).toMatchObject({ items: [{ value: 'C5' }], nextCursor: '' })
    })

    it('filters by the search', async () => {
      const found = await options({ field: 'channelIds', connectorId, search: 'DEV', cursor: '2' })
      expect(found.body.data.items).toEqual([{ label: '#devops', value: 'C3' }])
    })

    it('calls the platform once a minute for the same inputs', async () => {
      const body = { field: 'channelIds', connectorId, values: { other: 1 } }
      const before = platform.calls.length
      await options(body)
      await options({ ...body, values: { other: 1, channelIds: ['C9'] } })
      expect(platform.calls.length).toBe(before + 1)
      await options({ ...body, values: { other: 2 } })
      expect(platform.calls.length).toBe(before + 2)
      clock.skip(61_000)
      await options(body)
      expect(platform.calls.length).toBe(before + 3)
    })

    it('says whether the selected value is still offered by the pages loaded so far', async () => {
      const pick = (channelIds: string[], cursor?: string) =>
        options({ field: 'channelIds', connectorId, values: { channelIds }, search: 'sel', cursor })
      platform.setChannels([
        { id: 'C1', name: 'sel-a' },
        { id: 'C2', name: 'sel-b' },
        { id: 'C3', name: 'sel-c' },
      ])
      clock.skip(61_000)
      expect((await pick(['C1'])).body.data.selected).toEqual({ value: ['C1'], offered: true })
      expect((await pick(['C3'])).body.data.selected).toEqual({ value: ['C3'], offered: false })
      expect((await pick(['C1', 'C3'], '2')).body.data.selected).toEqual({ value: ['C1', 'C3'], offered: true })
      // The channel is gone: a reload from the first page no longer offers it.
      platform.setChannels([{ id: 'C2', name: 'sel-b' }])
      clock.skip(61_000)
      const reloaded = (await pick(['C1'])).body.data
      expect(reloaded.items).toEqual([{ label: '#sel-b', value: 'C2' }])
      expect(reloaded.selected).toEqual({ value: ['C1'], offered: false })
      platform.setChannels(CHANNELS)
    })

    it('answers no options without an API base URL, and none without a connector', async () => {
      expect((await options({ field: 'channelIds' })).body.data).toEqual({
        items: [],
        nextCursor: '',
        selected: null,
      })
    })

    it('answers 404 for an unknown type, a field without a loader or an unknown connector', async () => {
      expect((await options({ field: 'channelIds' }, 'chatapp-nope')).status).toBe(404)
      expect((await options({ field: 'reaction' }, 'chatapp-new-reaction-added')).status).toBe(404)
      expect((await options({ field: 'channelIds', connectorId: 'con_missing' })).status).toBe(404)
      const action = await t.call('POST', '/v1/catalog/actions/options-failing/options', { body: { field: 'nope' } })
      expect(action.status).toBe(404)
    })

    it("answers 400 with the plugin's message, and 502 when the platform cannot be reached", async () => {
      const refused = await t.call('POST', '/v1/catalog/actions/options-failing/options', {
        body: { field: 'refused' },
      })
      expect(refused.status).toBe(400)
      expect(refused.body.message).toBe('pick a workspace first')
      const unreachable = await t.call('POST', '/v1/catalog/actions/options-failing/options', {
        body: { field: 'unreachable' },
      })
      expect(unreachable.status).toBe(502)
    })

    it('needs connector:read when a connector is named', async () => {
      const account = await t.call('POST', '/v1/service-accounts', {
        body: { name: 'reader', permissions: ['action:read'] },
      })
      const issued = await t.call('POST', '/v1/api-keys', {
        body: { name: 'r', serviceAccountId: account.body.data.id },
      })
      const key = issued.body.data.key as string
      expect((await options({ field: 'channelIds' }, 'chatapp-mentions', key)).status).toBe(200)
      const refused = await options({ field: 'channelIds', connectorId }, 'chatapp-mentions', key)
      expect(refused.status).toBe(403)
      expect(refused.body.details).toEqual([{ message: 'missing permission', permission: 'connector:read' }])
    })
  })
}
