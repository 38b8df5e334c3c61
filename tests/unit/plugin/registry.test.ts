/** The SDK's objects and the registry's checks: a malformed plugin is refused, naming the plugin and the problem. */
import { describe, expect, it } from 'bun:test'
import { buildCatalog, withTags } from '../../../core/plugin/catalog.ts'
import { fieldsMatch, matchTrigger, matchWait } from '../../../core/plugin/matching.ts'
import { createRegistry, PluginError } from '../../../core/plugin/registry.ts'
import {
  defineAction,
  defineAgent,
  defineConnector,
  definePlugin,
  defineTrigger,
  defineWebhook,
  Secret,
  sdk,
  type TObject,
  TriggerEvent,
  Type,
} from '../../../core/plugin/sdk.ts'

const action = (type: string, extra: Record<string, unknown> = {}) =>
  defineAction({
    type,
    name: type,
    description: 'd',
    payload: Type.Object({}),
    result: Type.Object({}),
    run: () => ({}),
    ...extra,
  })
const trigger = (type: string, extra: Record<string, unknown> = {}) =>
  defineTrigger({
    type,
    name: type,
    description: 'd',
    payload: Type.Object({}),
    result: TriggerEvent(Type.Object({ n: Type.Integer() })),
    ...extra,
  })
const connector = (type: string, data: TObject = Type.Object({ token: Secret(), team: Type.String() })) =>
  defineConnector({ type, name: type, description: 'd', provider: 'Acme', data })
const webhook = (name: string, extra: Record<string, unknown> = {}) =>
  defineWebhook({
    name,
    description: 'd',
    path: `/v1/orgs/:orgId/integrations/${name}`,
    auth: { kind: 'none' },
    verify: () => ({ ok: true }),
    receive: () => ({ events: [] }),
    ...extra,
  })
const refused = (plugins: unknown[]) => {
  try {
    createRegistry(plugins as never)
  } catch (error) {
    expect(error).toBeInstanceOf(PluginError)
    return (error as Error).message
  }
  throw new Error('the registry accepted it')
}

describe('the SDK', () => {
  it('makes plain frozen objects, and definePlugin fills every list', () => {
    const a = action('acme-a')
    expect(Object.isFrozen(a)).toBe(true)
    const c = connector('acme')
    const p = definePlugin({ id: 'acme', connector: c, actions: [a] })
    expect(Object.isFrozen(p)).toBe(true)
    expect(p).toMatchObject({ triggers: [], actions: [a], connectors: [c], webhooks: [] })
    expect(Object.isFrozen(p.actions)).toBe(true)
    expect(Object.getPrototypeOf(p)).toBe(Object.prototype)
  })

  it('hands external plugins everything through one object', () => {
    expect(Object.keys(sdk).sort()).toEqual([
      'Condition',
      'Secret',
      'TriggerEvent',
      'Type',
      'defineAction',
      'defineAgent',
      'defineConnector',
      'definePlugin',
      'defineTrigger',
      'defineWebhook',
      'version',
    ])
    expect(Object.isFrozen(sdk)).toBe(true)
  })

  it('marks secret fields in the schema, as writeOnly JSON Schema', () => {
    expect(Secret({ description: 'k' })).toMatchObject({
      type: 'string',
      writeOnly: true,
      'x-automaton': 'secret',
      description: 'k',
      minLength: 1,
    })
  })
})

describe('the registry', () => {
  it('indexes actions, triggers, connectors and webhooks with the plugin that provides them', () => {
    const p = definePlugin({
      id: 'acme',
      connector: connector('acme'),
      actions: [action('acme-a', { connector: { type: 'acme' } })],
      triggers: [trigger('acme-t')],
      webhooks: [webhook('acme')],
    })
    const r = createRegistry([p])
    expect(r.action('acme-a')?.name).toBe('acme-a')
    expect(r.trigger('acme-t')?.name).toBe('acme-t')
    expect(r.connector('acme')?.provider).toBe('Acme')
    expect(r.webhooks()).toEqual([{ pluginId: 'acme', webhook: p.webhooks![0] }])
    expect(r.pluginOf('trigger', 'acme-t')?.id).toBe('acme')
  })

  it('keeps actions and triggers apart: one type may be both', () => {
    const r = createRegistry([
      definePlugin({ id: 'x', actions: [action('approval')], triggers: [trigger('approval')] }),
    ])
    expect(r.action('approval')).toBeDefined()
    expect(r.trigger('approval')).toBeDefined()
  })

  it('refuses a type provided twice, naming both plugins', () => {
    const message = refused([
      definePlugin({ id: 'one', actions: [action('dup-a')] }),
      definePlugin({ id: 'two', actions: [action('dup-a')] }),
    ])
    expect(message).toBe('plugin "two": action type "dup-a" is already provided by plugin "one"')
    expect(refused([definePlugin({ id: 'one' }), definePlugin({ id: 'one' })])).toContain(
      'another plugin has the same id',
    )
  })

  it('refuses malformed definitions with the problem named', () => {
    expect(refused([{ id: 'Bad Id' }])).toContain('id must be lower-case')
    expect(refused([definePlugin({ id: 'p', actions: [action('Not_Valid')] })])).toContain(
      'must be lower-case words joined by dashes',
    )
    expect(refused([definePlugin({ id: 'p', actions: [action('p-a', { run: undefined })] })])).toContain(
      'action "p-a" needs a run(ctx) function',
    )
    expect(refused([definePlugin({ id: 'p', actions: [action('p-a', { payload: Type.String() })] })])).toContain(
      'needs a TypeBox object schema as payload',
    )
    expect(refused([definePlugin({ id: 'p', actions: [action('p-a', { payload: { type: 'object' } })] })])).toContain(
      'needs a TypeBox object schema as payload',
    )
    expect(refused([definePlugin({ id: 'p', actions: [action('p-a', { raw: ['nope'] })] })])).toContain(
      'raw must list fields of the payload schema',
    )
    expect(refused([definePlugin({ id: 'p', triggers: [trigger('p-t', { matches: 'yes' })] })])).toContain(
      'matches must be a function',
    )
    expect(refused([definePlugin({ id: 'p', triggers: [trigger('p-t', { waitPayload: Type.String() })] })])).toContain(
      'waitPayload must be a TypeBox object schema',
    )
    expect(refused([definePlugin({ id: 'p', actions: [undefined as never] })])).toContain('an action must be an object')
  })

  it('indexes agent types, and refuses unknown tools, tools that need a connector, bad permissions and step counts', () => {
    const agent = (extra: Record<string, unknown> = {}) =>
      defineAgent({
        type: 'helper',
        name: 'Helper',
        description: 'Helps',
        system: 'Help.',
        tools: ['acme-free'],
        permissions: ['run:read'],
        ...extra,
      } as never)
    const tools = definePlugin({
      id: 'tools',
      connector: connector('acme'),
      actions: [action('acme-free'), action('acme-locked', { connector: { type: 'acme' } })],
    })
    const registry = createRegistry([tools, definePlugin({ id: 'helpers', agents: [agent()] })])
    expect(registry.agent('helper')?.name).toBe('Helper')
    expect(registry.agents().map((a) => a.type)).toEqual(['helper'])
    expect(registry.pluginOf('agent', 'helper')?.id).toBe('helpers')
    const refused = (extra: Record<string, unknown>) => {
      try {
        createRegistry([tools, definePlugin({ id: 'helpers', agents: [agent(extra)] })])
      } catch (error) {
        expect(error).toBeInstanceOf(PluginError)
        return (error as Error).message
      }
      throw new Error('accepted')
    }
    expect(refused({ tools: ['nope'] })).toContain('names tool "nope", which no loaded plugin provides')
    expect(refused({ tools: ['acme-locked'] })).toContain('needs a connector')
    expect(refused({ permissions: ['run:read', 'root:all'] })).toContain('root:all')
    expect(refused({ maxSteps: 21 })).toContain('maxSteps')
    expect(refused({ type: 'Bad Type' })).toContain('type must be')
    expect(refused({ system: ' ' })).toContain('system')
    expect(() =>
      createRegistry([
        tools,
        definePlugin({ id: 'a', agents: [agent()] }),
        definePlugin({ id: 'b', agents: [agent()] }),
      ]),
    ).toThrow('already provided by plugin "a"')
  })

  it('refuses a reference to a connector type no plugin defines', () => {
    expect(refused([definePlugin({ id: 'p', actions: [action('p-a', { connector: { type: 'ghost' } })] })])).toBe(
      'plugin "p": action "p-a" needs connector type "ghost", which no loaded plugin defines',
    )
    // Another plugin's connector type is fine.
    expect(() =>
      createRegistry([
        definePlugin({ id: 'q', connector: connector('ghost') }),
        definePlugin({ id: 'p', actions: [action('p-a', { connector: { type: 'ghost' } })] }),
      ]),
    ).not.toThrow()
  })

  it('refuses connectors whose secrets are not top-level strings, or that lack a provider', () => {
    expect(
      refused([
        definePlugin({ id: 'p', connector: connector('p', Type.Object({ nested: Type.Object({ key: Secret() }) })) }),
      ]),
    ).toContain('only top-level fields of data may be Secret()')
    expect(
      refused([
        definePlugin({
          id: 'p',
          connector: connector('p', Type.Object({ n: Type.Integer({ 'x-automaton': 'secret' }) })),
        }),
      ]),
    ).toContain('secret field "n" must be a string')
    expect(refused([definePlugin({ id: 'p', connector: { ...connector('p'), provider: '' } })])).toContain(
      'needs a provider',
    )
  })

  it('refuses malformed webhooks and two webhooks on one path', () => {
    expect(refused([definePlugin({ id: 'p', webhooks: [webhook('p', { path: '/hooks/p' })] })])).toContain(
      'path must start with /v1/',
    )
    expect(refused([definePlugin({ id: 'p', webhooks: [webhook('p', { auth: { kind: 'magic' } })] })])).toContain(
      'auth must be',
    )
    expect(
      refused([definePlugin({ id: 'p', webhooks: [webhook('p', { auth: { kind: 'setting', setting: 'lower' } })] })]),
    ).toContain('auth.setting must name an environment variable')
    expect(refused([definePlugin({ id: 'p', webhooks: [webhook('p', { receive: undefined })] })])).toContain(
      'needs a receive(request, ctx) function',
    )
    expect(
      refused([
        definePlugin({
          id: 'p',
          webhooks: [webhook('p', { auth: { kind: 'connector', connector: { type: 'ghost' } } })],
        }),
      ]),
    ).toContain('needs connector type "ghost"')
    expect(
      refused([
        definePlugin({
          id: 'p',
          webhooks: [webhook('p', { path: '/v1/integrations/p', auth: { kind: 'organization' } })],
        }),
      ]),
    ).toContain('needs :orgId in the path')
    const same = (id: string) =>
      definePlugin({ id, webhooks: [webhook('events', { path: `/v1/orgs/:${id}/integrations/x` })] })
    expect(refused([same('a'), same('b')])).toContain('path /v1/orgs/:b/integrations/x is already used by plugin "a"')
  })
})

describe('the catalog of a registry', () => {
  const registry = createRegistry([
    definePlugin({
      id: 'acme',
      author: 'Acme Inc.',
      connector: connector('acme'),
      actions: [
        action('acme-a', {
          tags: ['x', 'y'],
          connector: { type: 'acme', walletSupport: ['evm'] },
          branches: ['ok', 'ko'],
        }),
      ],
      triggers: [
        trigger('acme-t', {
          tags: ['x'],
          platform: 'acmeapp',
          waitPayload: Type.Object({ n: Type.Optional(Type.Integer()) }),
        }),
      ],
    }),
  ])
  const catalog = buildCatalog(registry)

  it("gives plain JSON Schemas and the spec's trigger entry fields", () => {
    const entry = catalog.triggers[0]
    expect(Object.keys(entry).sort()).toEqual([
      'connector',
      'createdBy',
      'description',
      'documentationUrl',
      'logoUrl',
      'name',
      'payloadSchema',
      'platform',
      'plugin',
      'resultSchema',
      'tags',
      'type',
      'version',
      'versions',
      'waitPayloadSchema',
    ])
    expect(entry).toMatchObject({
      type: 'acme-t',
      platform: 'acmeapp',
      createdBy: 'Acme Inc.',
      connector: null,
      documentationUrl: '',
      waitPayloadSchema: { type: 'object' },
    })
    expect(Object.getOwnPropertySymbols(entry.resultSchema)).toEqual([])
    expect(entry.resultSchema).toEqual(JSON.parse(JSON.stringify(entry.resultSchema)))
    expect(catalog.actions[0]).toMatchObject({
      connector: { type: 'acme', walletSupport: ['evm'] },
      branches: ['ok', 'ko'],
      loop: false,
    })
    expect(catalog.connectorTypes[0]).toMatchObject({
      type: 'acme',
      secretFields: ['token'],
      dataSchema: { properties: { token: { writeOnly: true } } },
    })
  })

  it('filters by tags: every tag must match', () => {
    expect(withTags(catalog.actions, ['x', 'y'])).toHaveLength(1)
    expect(withTags(catalog.actions, ['x', 'z'])).toHaveLength(0)
    expect(withTags(catalog.triggers, [])).toHaveLength(1)
  })
})

describe('matching events', () => {
  const t = trigger('m-t', { matches: (c: { n?: number }, e: { body: { n: number } }) => e.body.n === c.n })
  it('uses matches, and counts a throwing matches as no match', () => {
    expect(matchTrigger(t, { n: 1 }, { body: { n: 1 } })).toEqual({ matched: true })
    const boom = trigger('m-b', {
      matches: () => {
        throw new Error('kaput')
      },
    })
    expect(matchTrigger(boom, {}, {})).toEqual({ matched: false, error: 'trigger "m-b" matches() threw: kaput' })
    expect(matchTrigger(trigger('m-any'), {}, {})).toEqual({ matched: true })
  })

  it('matches waits by dot paths of the body by default', () => {
    expect(fieldsMatch({ 'order.id': 'o1', paid: true }, { body: { order: { id: 'o1' }, paid: true } })).toBe(true)
    expect(fieldsMatch({ 'order.id': 'o2' }, { body: { order: { id: 'o1' } } })).toBe(false)
    expect(fieldsMatch({}, { body: null })).toBe(true)
    expect(matchWait(t, { 'a.b': [1, { c: 2 }] }, { body: { a: { b: [1, { c: 2 }] } } }).matched).toBe(true)
  })
})
