/** The plugin test kit behaves like the engine: payload resolution, directives, failures, masking, webhooks. */
import { describe, expect, it } from 'bun:test'
import {
  answerWebhook,
  loadPlugin,
  matchTrigger,
  resumeAction,
  runAction,
  runWebhook,
  TestKitError,
  webhookRequest,
} from '../../../runtime/testing/index.ts'
import {
  Condition,
  defineAction,
  defineConnector,
  definePlugin,
  defineTrigger,
  defineWebhook,
  Secret,
  TriggerEvent,
  Type,
} from '../../../core/plugin/sdk.ts'
import { PluginLoadError } from '../../../core/plugin/load.ts'
import type { AnyAction } from '../../../core/plugin/registry.ts'
import corePlugin from '../../../plugins/builtin/index.ts'

const core = (type: string): AnyAction => corePlugin.actions!.find((a) => a.type === type)!

describe('runAction', () => {
  it('resolves expressions against the roots given, applies defaults and returns the result', async () => {
    const echo = defineAction({
      type: 'kit-echo',
      name: 'Echo',
      description: '',
      payload: Type.Object({ text: Type.String(), times: Type.Integer({ default: 2 }) }),
      result: Type.Object({ out: Type.String() }),
      run: (ctx) => {
        ctx.log('echoing', { times: ctx.payload.times })
        ctx.vars.set('last', ctx.payload.text)
        return { out: ctx.payload.text.repeat(ctx.payload.times) }
      },
    })
    const out = await runAction(echo, {
      payload: { text: '{{root.result.body.word}}-{{$vars.suffix}}' },
      scope: { root: { result: { body: { word: 'hi' } } } },
      vars: { suffix: 'x' },
    })
    expect(out).toMatchObject({
      kind: 'result',
      result: { out: 'hi-xhi-x' },
      payload: { text: 'hi-x', times: 2 },
      vars: { last: 'hi-x' },
      logs: ['echoing {"times":2}'],
    })
  })

  it('returns directives as outcomes: branch, wait and loop', async () => {
    const branch = await runAction(core('if'), {
      payload: { condition: { $and: [{ '{{root.result.body.n}}': { $gt: 1 } }] } },
      scope: { root: { result: { body: { n: 5 } } } },
    })
    expect(branch).toMatchObject({ kind: 'branch', branch: 'then', result: { value: true } })
    expect(await runAction(core('delay'), { payload: { delayMs: 1000 }, now: 5000 })).toMatchObject({
      kind: 'wait',
      wait: { until: 6000 },
    })
    expect(await runAction(core('for-each'), { payload: { array: [1, 2] } })).toMatchObject({
      kind: 'loop',
      items: [1, 2],
    })
    const filtered = await runAction(core('filter'), {
      payload: { array: [1, 5, 9], condition: { $and: [{ '{{$item}}': { $gt: 3 } }] } },
    })
    expect(filtered).toMatchObject({ kind: 'result', result: { items: [5, 9], count: 2 } })
  })

  it('turns a throwing handler and an invalid payload into failures, as the engine does', async () => {
    const boom = defineAction({
      type: 'kit-boom',
      name: 'Boom',
      description: '',
      payload: Type.Object({ n: Type.Integer() }),
      result: Type.Object({}),
      run: () => {
        throw new Error('kaput')
      },
    })
    expect(await runAction(boom, { payload: { n: 1 } })).toMatchObject({ kind: 'failure', error: 'kaput' })
    const invalid = await runAction(boom, { payload: { n: 'one' } })
    expect(invalid).toMatchObject({ kind: 'failure', code: 'invalid_payload' })
    expect(invalid.kind === 'failure' && invalid.error).toContain('/n')
  })

  it('answers HTTP through the fake given, records requests, and fails without one', async () => {
    const out = await runAction(core('http-request'), {
      payload: { url: 'https://example.test/x', method: 'POST', body: { a: 1 } },
      http: () => Response.json({ ok: true }),
    })
    expect(out).toMatchObject({ kind: 'result', result: { status: 200, body: { ok: true } } })
    expect(out.requests).toHaveLength(1)
    expect(out.requests[0]).toMatchObject({ method: 'POST', url: 'https://example.test/x', body: '{"a":1}' })
    expect(out.requests[0].headers?.['idempotency-key']).toBe('run_test:node:1')
    expect(await runAction(core('http-request'), { payload: { url: 'https://example.test/x' } })).toMatchObject({
      kind: 'failure',
    })
  })

  it('gives the connector data, requires it when the action does, and masks its secrets in what the node leaves', async () => {
    const vault = defineConnector({
      type: 'vault',
      name: 'Vault',
      description: '',
      provider: 'v',
      data: Type.Object({ token: Secret(), region: Type.String() }),
    })
    const leak = defineAction({
      type: 'vault-leak',
      name: 'Leak',
      description: '',
      connector: vault,
      payload: Type.Object({}),
      result: Type.Object({ said: Type.String() }),
      run: (ctx) => {
        ctx.log(`token is ${ctx.connector!.token}`)
        return { said: `${ctx.connector!.region}:${ctx.connector!.token}` }
      },
    })
    expect(await runAction(leak, {})).toMatchObject({
      kind: 'failure',
      error: 'this node needs a vault connector: pass options.connector',
    })
    expect(await runAction(leak, { connector: { region: 'eu' } as never })).toMatchObject({ kind: 'failure' })
    const out = await runAction(leak, { connector: { token: 'tok_0123456789', region: 'eu' } })
    expect(out).toMatchObject({ kind: 'result', result: { said: 'eu:••••' }, logs: ['token is ••••'] })
  })

  it('leaves raw fields as written, for the handler to evaluate', async () => {
    const raw = defineAction({
      type: 'kit-raw',
      name: 'Raw',
      description: '',
      payload: Type.Object({ when: Condition() }),
      raw: ['when'],
      result: Type.Object({ ok: Type.Boolean() }),
      run: (ctx) => ({ ok: ctx.evaluateCondition(ctx.payload.when, { $item: 3 }) }),
    })
    expect(await runAction(raw, { payload: { when: { $and: [{ '{{$item}}': { $eq: 3 } }] } } })).toMatchObject({
      kind: 'result',
      result: { ok: true },
    })
  })
})

describe('resumeAction', () => {
  it('resumes through resume, times out through timeout, and fails a timeout without one', async () => {
    expect(await resumeAction(core('approval'), { data: { approved: true } })).toMatchObject({
      kind: 'branch',
      branch: 'approved',
      result: { approved: true },
    })
    expect(await resumeAction(core('wait'), { timedOut: true })).toMatchObject({ kind: 'branch', branch: 'timed_out' })
    const plain = defineAction({
      type: 'kit-w',
      name: 'W',
      description: '',
      payload: Type.Object({}),
      result: Type.Any(),
      run: (ctx) => ctx.wait({ timeoutMs: 5 }),
    })
    expect(await resumeAction(plain, { data: { x: 1 } })).toMatchObject({ kind: 'result', result: { x: 1 } })
    expect(await resumeAction(plain, { timedOut: true, wait: { timeoutMs: 5 } })).toMatchObject({
      kind: 'failure',
      code: 'timeout',
    })
  })
})

describe('matchTrigger', () => {
  const t = defineTrigger({
    type: 'kit-t',
    name: 'T',
    description: '',
    payload: Type.Object({ min: Type.Integer({ default: 10 }) }),
    result: TriggerEvent(Type.Object({ n: Type.Integer() })),
    matches: (c, e) => e.body.n >= c.min,
  })
  it("applies the configuration's defaults and the trigger's matches", () => {
    expect(matchTrigger(t, {}, { n: 10 })).toBe(true)
    expect(matchTrigger(t, { min: 20 }, { n: 10 })).toBe(false)
  })
  it('refuses a configuration or an event that does not fit the schemas', () => {
    expect(() => matchTrigger(t, { min: 'x' }, { n: 1 })).toThrow(TestKitError)
    expect(() => matchTrigger(t, {}, { n: 'one' })).toThrow(/does not match its schema/)
  })
})

describe('runWebhook', () => {
  const hook = defineWebhook({
    name: 'events',
    description: '',
    path: '/v1/integrations/kit/events',
    auth: { kind: 'setting', setting: 'KIT_SECRET' },
    verify: async (req, ctx) =>
      ctx.crypto.safeEqual(await ctx.crypto.hmacSha256(ctx.secret ?? '', req.rawBody), req.headers['x-sig'] ?? '')
        ? { ok: true }
        : { ok: false, status: 401, reason: 'bad signature' },
    receive: (req) => {
      const body = req.body as { type: string; challenge?: string; id?: string }
      if (body.type === 'url_verification') return { respond: { body: { challenge: body.challenge } } }
      return { events: [{ triggerType: 'kit-t', eventId: body.id!, body }] }
    },
    answer: (result) => ({ status: 200, body: { runs: result.runIds.length } }),
  })
  const sign = async (raw: string) => {
    const key = await crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode('s3cret'),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    )
    return Buffer.from(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(raw))).toString('hex')
  }

  it('verifies over the raw body, then receives events or a direct answer', async () => {
    const raw = '{"type":"message","id":"e1"}'
    const out = await runWebhook(hook, webhookRequest({ rawBody: raw, headers: { 'X-Sig': await sign(raw) } }), {
      secret: 's3cret',
    })
    expect(out).toMatchObject({
      status: 200,
      events: [{ triggerType: 'kit-t', eventId: 'e1', body: { type: 'message', id: 'e1' } }],
    })
    const challenge = '{"type":"url_verification","challenge":"c1"}'
    expect(
      await runWebhook(hook, { rawBody: challenge, headers: { 'x-sig': await sign(challenge) } }, { secret: 's3cret' }),
    ).toMatchObject({ respond: { body: { challenge: 'c1' } }, events: [] })
    expect(await runWebhook(hook, { rawBody: raw, headers: { 'x-sig': 'ab' } }, { secret: 's3cret' })).toMatchObject({
      status: 401,
      verdict: { ok: false, reason: 'bad signature' },
    })
    expect(answerWebhook(hook, { action: 'triggered', eventId: 'evt_1', runIds: ['run_1', 'run_2'] })).toEqual({
      status: 200,
      body: { runs: 2 },
    })
  })

  it('refuses a reply without event ids', async () => {
    const bad = defineWebhook({
      ...hook,
      verify: () => ({ ok: true }),
      receive: () => ({ events: [{ triggerType: 'kit-t', body: {} }] }) as never,
    })
    expect(runWebhook(bad, { body: {} })).rejects.toThrow('events[0] needs an eventId')
  })
})

describe('loadPlugin', () => {
  it('loads a function of the SDK or a plugin object, and refuses what the server would refuse', async () => {
    const { plugin, registry } = await loadPlugin((sdk) => sdk.definePlugin({ id: 'kit', actions: [] }))
    expect(plugin.id).toBe('kit')
    expect(registry.plugins).toHaveLength(1)
    expect((await loadPlugin({ default: definePlugin({ id: 'kit2' }) })).plugin.id).toBe('kit2')
    expect(loadPlugin({ default: undefined as never })).rejects.toBeInstanceOf(PluginLoadError)
    expect(loadPlugin(() => ({ id: 'Bad Id' }))).rejects.toThrow('id must be lower-case')
  })
})
