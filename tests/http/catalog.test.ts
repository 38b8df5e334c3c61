/** The catalog endpoints: trigger, action and connector types generated from the loaded plugins. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'

describe('the catalog', () => {
  let t: TestSystem
  let noCatalog: string
  beforeAll(async () => {
    t = await openTestSystem('sqlite')
    const sa = await t.call('POST', '/v1/service-accounts', { body: { name: 'runner', permissions: ['run:read'] } })
    noCatalog = (await t.call('POST', '/v1/api-keys', { body: { name: 'k', serviceAccountId: sa.body.data.id } })).body
      .data.key
  })
  afterAll(() => t.close())

  it("lists trigger types in the specification's catalog entry shape", async () => {
    const r = await t.call('GET', '/v1/triggers')
    expect(r.status).toBe(200)
    const types = r.body.data.map((e: { type: string }) => e.type)
    expect(types).toContain('manual')
    expect(types).toContain('chatapp-new-message-in-channels')
    expect(types).toContain('crosschain')
    expect(types).toEqual([...types].sort())
    const entry = r.body.data.find((e: { type: string }) => e.type === 'payprovider-payment-receive')
    expect(entry).toMatchObject({
      name: 'Payment received',
      platform: 'payprovider',
      createdBy: 'payprovider',
      documentationUrl: '',
      logoUrl: '',
      tags: ['payments', 'payprovider'],
      connector: { type: 'payprovider' },
      payloadSchema: { type: 'object', properties: { minAmount: { type: 'integer' } } },
      resultSchema: { type: 'object', properties: { body: { type: 'object' } } },
      waitPayloadSchema: { type: 'object' },
    })
    expect(r.body.data.find((e: { type: string }) => e.type === 'manual')).toMatchObject({
      connector: null,
      waitPayloadSchema: null,
    })
  })

  it('filters by tags, comma-separated or repeated, every tag matching', async () => {
    const both = (await t.call('GET', '/v1/triggers?tags=evm,erc20')).body.data.map((e: { type: string }) => e.type)
    expect(both.sort()).toEqual(['erc20-receive', 'erc20-send'])
    const repeated = (await t.call('GET', '/v1/triggers?tags=evm&tags=ERC20')).body.data.map(
      (e: { type: string }) => e.type,
    )
    expect(repeated.sort()).toEqual(['erc20-receive', 'erc20-send'])
    expect((await t.call('GET', '/v1/triggers?tags=evm,chat')).body.data).toEqual([])
    const chat = (await t.call('GET', '/v1/triggers?platform=chatapp')).body.data
    expect(chat).toHaveLength(9)
  })

  it('reads one trigger type, and answers 404 for an unknown one', async () => {
    const r = await t.call('GET', '/v1/triggers/evm-log')
    expect(r.body.data).toMatchObject({
      type: 'evm-log',
      platform: 'evm',
      payloadSchema: { required: ['chainId', 'address'] },
    })
    const missing = await t.call('GET', '/v1/triggers/nope')
    expect(missing.status).toBe(404)
    expect(missing.body.message).toBe('trigger type not found')
  })

  it('lists and reads action types, with branches and connectors', async () => {
    const list = await t.call('GET', '/v1/actions?tags=flow')
    expect(list.body.data.map((e: { type: string }) => e.type)).toContain('wait')
    const ifNode = await t.call('GET', '/v1/actions/if')
    expect(ifNode.body.data).toMatchObject({
      type: 'if',
      plugin: 'core',
      branches: ['then', 'else'],
      loop: false,
      connector: null,
    })
    expect((await t.call('GET', '/v1/actions/for-each')).body.data.loop).toBe(true)
    expect((await t.call('GET', '/v1/actions/nope')).status).toBe(404)
  })

  it('lists connector types with their data schema and secret fields', async () => {
    const r = await t.call('GET', '/v1/connector-types')
    const chatapp = r.body.data.find((e: { type: string }) => e.type === 'chatapp')
    expect(chatapp).toMatchObject({
      provider: 'Chat platform',
      secretFields: ['botToken'],
      plugin: 'chatapp',
      dataSchema: { required: ['teamId', 'botToken'], properties: { botToken: { type: 'string', writeOnly: true } } },
    })
    expect((await t.call('GET', '/v1/connector-types/payprovider')).body.data.secretFields).toEqual(['signingSecret'])
    expect((await t.call('GET', '/v1/connector-types/nope')).status).toBe(404)
  })

  it('needs action:read (and connector:read for connector types)', async () => {
    expect((await t.call('GET', '/v1/triggers', { key: null })).status).toBe(401)
    expect((await t.call('GET', '/v1/triggers', { key: noCatalog })).status).toBe(403)
    expect((await t.call('GET', '/v1/actions', { key: noCatalog })).status).toBe(403)
    expect((await t.call('GET', '/v1/connector-types', { key: noCatalog })).status).toBe(403)
    const readKey = (await t.call('POST', '/v1/api-keys', { body: { name: 'reader', scope: 'read' } })).body.data.key
    expect((await t.call('GET', '/v1/triggers', { key: readKey })).status).toBe(200)
    expect((await t.call('GET', '/v1/connector-types', { key: readKey })).status).toBe(200)
  })

  it('is documented in the OpenAPI document', async () => {
    const doc = (await t.call('GET', '/v1/openapi.json', { key: null })).body
    for (const path of [
      '/v1/triggers',
      '/v1/triggers/{type}',
      '/v1/actions',
      '/v1/actions/{type}',
      '/v1/connector-types',
      '/v1/connectors',
      '/v1/connectors/{id}',
    ]) {
      expect(Object.keys(doc.paths)).toContain(path)
    }
  })
})
