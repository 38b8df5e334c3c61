/**
 * Node versions: a plugin ships a new version of an action beside the old one; workflows keep
 * the version they were saved with until migrated; a dry run lists what a migration changes;
 * applying it writes a draft, and the live version keeps running the old one until published.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { buildCatalog } from '../../core/plugin/catalog.ts'
import { migrateDefinition } from '../../core/plugin/migrations.ts'
import { createRegistry, PluginError } from '../../core/plugin/registry.ts'
import { defineAction, definePlugin, Type } from '../../core/plugin/sdk.ts'
import { BUILT_IN_PLUGINS } from '../../plugins/index.ts'
import { createDefinitionChecker } from '../../runtime/definition/check.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createWorkflow, linear, publish, runAndWait, waitForRun } from '../helpers/workflows.ts'

/** Version 1 greets `name`; version 2 splits it into `first` and `last` and says hello differently. */
const greetV1 = defineAction({
  type: 'greeter-greet',
  name: 'Greet',
  description: 'Greets someone',
  payload: Type.Object({ name: Type.String() }),
  result: Type.Object({ text: Type.String() }),
  run: ({ payload }) => ({ text: `hi ${payload.name}` }),
})
const greetV2 = defineAction({
  type: 'greeter-greet',
  version: 2,
  name: 'Greet',
  description: 'Greets someone by first and last name',
  payload: Type.Object({ first: Type.String(), last: Type.Optional(Type.String()) }),
  result: Type.Object({ text: Type.String() }),
  run: ({ payload }) => ({ text: `hello ${payload.first} ${payload.last ?? ''}`.trim() }),
  migrate: (payload) => {
    const [first, ...rest] = String(payload.name ?? '').split(' ')
    return rest.length > 0 ? { first, last: rest.join(' ') } : { first }
  },
})
const v1Only = definePlugin({ id: 'greeter', actions: [greetV1] })
const v1AndV2 = definePlugin({ id: 'greeter', actions: [greetV1, greetV2] })
const brokenV2 = definePlugin({
  id: 'greeter',
  actions: [
    greetV1,
    {
      ...greetV2,
      migrate: () => {
        throw new Error('cannot split names')
      },
    },
  ],
})

/** A run of the live version, as an event starts it (the workflow's webhook). */
async function liveRun(t: TestSystem, workflowId: string) {
  const { triggerSecret } = (await t.call('GET', `/v1/workflows/${workflowId}`)).body.data
  const hook = await t.call('POST', `/v1/webhooks/${triggerSecret}`, { key: null, body: {} })
  expect(hook.body.data.action).toBe('triggered')
  return waitForRun(t, hook.body.data.runIds[0])
}

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
const refuses = (plugins: Parameters<typeof createRegistry>[0], problem: RegExp) => {
  let error: unknown
  try {
    createRegistry(plugins)
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(PluginError)
  expect((error as PluginError).problem).toMatch(problem)
}

describe('the registry with versions', () => {
  it('answers the latest version by default and any loaded version by number', () => {
    const registry = createRegistry([v1AndV2])
    expect(registry.action('greeter-greet')).toBe(greetV2)
    expect(registry.action('greeter-greet', 1)).toBe(greetV1)
    expect(registry.action('greeter-greet', 2)).toBe(greetV2)
    expect(registry.action('greeter-greet', 3)).toBeUndefined()
    expect(registry.versions('action', 'greeter-greet')).toEqual([1, 2])
    expect(registry.actions().filter((a) => a.type === 'greeter-greet')).toEqual([greetV2])
  })

  it('lists the latest version and every version in the catalog', () => {
    const entry = buildCatalog(createRegistry([v1AndV2])).actions.find((a) => a.type === 'greeter-greet')!
    expect(entry).toMatchObject({ version: 2, versions: [1, 2] })
    expect(Object.keys(entry.payloadSchema.properties as object)).toEqual(['first', 'last'])
    expect(buildCatalog(createRegistry([v1Only])).actions[0]).toMatchObject({ version: 1, versions: [1] })
  })

  it('refuses a version given twice, versions from two plugins, gaps and a newer version without migrate', () => {
    refuses([definePlugin({ id: 'p', actions: [action('p-a'), action('p-a')] })], /lists version 1 twice/)
    refuses(
      [
        definePlugin({ id: 'p', actions: [action('p-a')] }),
        definePlugin({ id: 'q', actions: [action('p-a', { version: 2, migrate: (x: object) => x })] }),
      ],
      /already provided by plugin "p"/,
    )
    refuses(
      [definePlugin({ id: 'p', actions: [action('p-a'), action('p-a', { version: 3, migrate: (x: object) => x })] })],
      /consecutive \(1 is followed by 3\)/,
    )
    refuses(
      [definePlugin({ id: 'p', actions: [action('p-a'), action('p-a', { version: 2 })] })],
      /version 2 needs migrate/,
    )
    refuses([definePlugin({ id: 'p', actions: [action('p-a', { version: 0 })] })], /version must be a whole number/)
    refuses([definePlugin({ id: 'p', actions: [action('p-a', { migrate: 'x' })] })], /migrate must be a function/)
  })

  it('lets the first version a plugin ships be newer than 1 without migrate', () => {
    const registry = createRegistry([definePlugin({ id: 'p', actions: [action('p-a', { version: 4 })] })])
    expect(registry.versions('action', 'p-a')).toEqual([4])
  })
})

describe('definitions with versions', () => {
  const registry = createRegistry([...BUILT_IN_PLUGINS, v1AndV2])
  const checker = createDefinitionChecker(registry)
  const definition = (node: Record<string, unknown>) =>
    linear({ greet: { type: 'greeter-greet', ...node } }, ['greet']) as never

  it('checks a payload against the version the node names', () => {
    expect(checker.check(definition({ typeVersion: 1, payload: { name: 'Ada Lovelace' } })).errors).toEqual([])
    expect(checker.check(definition({ typeVersion: 2, payload: { first: 'Ada' } })).errors).toEqual([])
    expect(checker.check(definition({ payload: { first: 'Ada' } })).errors).toEqual([])
    expect(checker.check(definition({ typeVersion: 2, payload: { name: 'Ada' } })).errors.map((e) => e.path)).toContain(
      '/nodes/greet/payload/first',
    )
  })

  it('names a version no loaded plugin provides', () => {
    expect(checker.check(definition({ typeVersion: 7, payload: {} })).errors).toEqual([
      { path: '/nodes/greet/typeVersion', message: 'version 7 of action "greeter-greet" is not loaded (loaded: 1, 2)' },
    ])
  })

  it('pins nodes without a version to the latest, leaving the rest alone', () => {
    const pinned = checker.pinVersions(definition({ payload: { first: 'Ada' } }))
    expect(pinned.nodes.greet.typeVersion).toBe(2)
    expect(pinned.nodes.root.typeVersion).toBe(1)
    expect(checker.pinVersions(pinned)).toBe(pinned)
    expect(checker.pinVersions(definition({ typeVersion: 1, payload: {} })).nodes.greet.typeVersion).toBe(1)
  })

  it('migrates a payload step by step and says which fields changed', () => {
    const { migrations, definition: after } = migrateDefinition(
      registry,
      definition({ typeVersion: 1, payload: { name: 'Ada Lovelace' } }),
    )
    expect(migrations).toEqual([
      {
        nodeId: 'greet',
        type: 'greeter-greet',
        fromVersion: 1,
        toVersion: 2,
        before: { name: 'Ada Lovelace' },
        after: { first: 'Ada', last: 'Lovelace' },
        changedFields: ['first', 'last', 'name'],
      },
    ])
    expect(after.nodes.greet).toMatchObject({ typeVersion: 2, payload: { first: 'Ada', last: 'Lovelace' } })
    expect(migrateDefinition(registry, definition({ typeVersion: 1, payload: {} }), ['other']).migrations).toEqual([])
  })
})

for (const kind of storeKinds()) {
  describe(`node migrations over HTTP (${kind})`, () => {
    let t: TestSystem
    let upgraded: TestSystem
    let workflowId: string
    beforeAll(async () => {
      t = await openTestSystem(kind, {}, { plugins: [v1Only] })
      const w = await createWorkflow(t, {
        name: 'greeter',
        definition: linear({ greet: { type: 'greeter-greet', payload: { name: 'Ada Lovelace' } } }, ['greet']),
      })
      workflowId = w.id
      expect(w.definition.nodes.greet.typeVersion).toBe(1)
      await publish(t, workflowId)
      // The plugin ships version 2: the same data, opened with the new plugin.
      await t.stop()
      upgraded = await t.openSibling({}, { plugins: [v1AndV2] })
    })
    afterAll(async () => {
      await upgraded?.stop()
      await t?.close()
    })

    it('keeps running the version a workflow was saved with after a newer one loads', async () => {
      const run = await runAndWait(upgraded, workflowId)
      expect(run.status).toBe('success')
      expect(run.nodes.greet.result).toEqual({ text: 'hi Ada Lovelace' })
    })

    it('lists what a migration would change, per workflow and for the organization', async () => {
      const dry = await upgraded.call('POST', `/v1/workflows/${workflowId}/migrate-nodes`, { body: { dryRun: true } })
      expect(dry.status).toBe(200)
      expect(dry.body.data).toMatchObject({
        workflowId,
        dryRun: true,
        draftVersion: null,
        migrations: [
          {
            nodeId: 'greet',
            fromVersion: 1,
            toVersion: 2,
            before: { name: 'Ada Lovelace' },
            after: { first: 'Ada', last: 'Lovelace' },
          },
        ],
      })
      const all = await upgraded.call('GET', '/v1/node-migrations?type=greeter-greet')
      expect(all.status).toBe(200)
      expect(all.body.data).toEqual([
        expect.objectContaining({
          workflowId,
          name: 'greeter',
          migrations: [expect.objectContaining({ nodeId: 'greet' })],
        }),
      ])
      expect((await upgraded.call('GET', '/v1/node-migrations?type=manual')).body.data).toEqual([])
      // Nothing was written.
      const w = (await upgraded.call('GET', `/v1/workflows/${workflowId}`)).body.data
      expect(w.definition.nodes.greet.typeVersion).toBe(1)
    })

    it('writes the migration as a draft; the live version runs version 1 until the draft is published', async () => {
      const applied = await upgraded.call('POST', `/v1/workflows/${workflowId}/migrate-nodes`, { body: {} })
      expect(applied.status).toBe(200)
      expect(applied.body.data.draftVersion).toBe(2)
      const draft = (await upgraded.call('GET', `/v1/workflows/${workflowId}`)).body.data
      expect(draft.definition.nodes.greet).toMatchObject({
        typeVersion: 2,
        payload: { first: 'Ada', last: 'Lovelace' },
      })
      // A manual run tries the draft; the live version, which events start, still runs version 1.
      expect((await runAndWait(upgraded, workflowId)).nodes.greet.result).toEqual({ text: 'hello Ada Lovelace' })
      expect((await liveRun(upgraded, workflowId)).nodes.greet.result).toEqual({ text: 'hi Ada Lovelace' })

      await publish(upgraded, workflowId)
      expect((await liveRun(upgraded, workflowId)).nodes.greet.result).toEqual({ text: 'hello Ada Lovelace' })
      const again = await upgraded.call('POST', `/v1/workflows/${workflowId}/migrate-nodes`, { body: {} })
      expect(again.body.data).toMatchObject({ draftVersion: null, migrations: [] })
    })

    it('answers 409 naming the node when a migration throws, and writes nothing', async () => {
      const broken = await upgraded.openSibling({}, { plugins: [brokenV2] })
      try {
        const w = await createWorkflow(broken, {
          name: 'old greeter',
          definition: linear({ greet: { type: 'greeter-greet', typeVersion: 1, payload: { name: 'Ada' } } }, ['greet']),
        })
        const r = await broken.call('POST', `/v1/workflows/${w.id}/migrate-nodes`, { body: {} })
        expect(r.status).toBe(409)
        expect(r.body.message).toContain('node greet cannot be migrated')
        expect(r.body.message).toContain('cannot split names')
        expect((await broken.call('GET', `/v1/workflows/${w.id}`)).body.data.version).toBe(1)
        const listed = (await broken.call('GET', '/v1/node-migrations')).body.data
        expect(listed.find((x: { workflowId: string }) => x.workflowId === w.id).migrations[0]).toMatchObject({
          after: null,
          error: expect.stringContaining('cannot split names'),
        })
      } finally {
        await broken.stop()
      }
    })

    it('refuses a version no loaded plugin provides when saving', async () => {
      const r = await upgraded.call('POST', '/v1/workflows', {
        body: {
          name: 'future',
          definition: linear({ greet: { type: 'greeter-greet', typeVersion: 3, payload: {} } }, ['greet']),
        },
      })
      expect(r.status).toBe(400)
      expect(r.body.details.map((d: { path: string }) => d.path)).toContain('/definition/nodes/greet/typeVersion')
    })
  })
}
