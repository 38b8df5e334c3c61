/**
 * Templates, tags and apps, black-box, with the operator organization (acme here) and two more:
 * publish, moderate, promote, search, fork with valid and invalid props, run the fork and read
 * `$props`, pending versions invisible to others, archived templates leaving listings, tag counts
 * per scope, the pagination bypass, interests, and the widget page of an app.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { addMember, asSession } from '../helpers/people.ts'
import { createWorkflow, publish, runAndWait } from '../helpers/workflows.ts'
import { templates } from '../../core/store/templates.ts'

const BYPASS = 'bypass-key-for-tests-0123456789'

const DEFINITION = {
  triggerNodeIds: ['root'],
  nodes: {
    root: { type: 'manual', children: ['say'] },
    say: {
      type: 'log',
      payload: {
        message: { greeting: '{{$props.greeting}}', cities: '{{$props.places.city}}', token: '{{$props.token}}' },
      },
    },
  },
}

const PROPS = [
  { key: 'greeting', name: 'Greeting', type: 'string', required: true, properties: { pattern: '^[A-Za-z ]+$' } },
  { key: 'count', name: 'Count', type: 'integer', default: 3, properties: { minimum: 1, maximum: 10 } },
  { key: 'mode', name: 'Mode', type: 'string', properties: { enum: ['fast', 'slow'] } },
  { key: 'token', name: 'Token', type: 'string', sensitive: true },
  {
    key: 'places',
    name: 'Places',
    type: 'object',
    properties: {
      inputType: 'csvTable',
      minRows: 2,
      maxRows: 3,
      columns: [
        { key: 'city', required: true },
        { key: 'people', type: 'integer', minimum: 0 },
      ],
    },
  },
]

for (const kind of storeKinds()) {
  describe(`templates (${kind})`, () => {
    let t: TestSystem
    let b: { orgId: string; key: string }
    let c: { orgId: string; key: string }
    beforeAll(async () => {
      // The first organization of the test system is named acme: the operator here.
      t = await openTestSystem(kind, { AUTOMATON_OPERATOR_ORG: 'acme', AUTOMATON_PAGINATION_BYPASS_KEY: BYPASS })
      b = await t.newOrganization(`tpl-b-${kind}`)
      c = await t.newOrganization(`tpl-c-${kind}`)
    })
    afterAll(() => t.close())

    const asB = (method: string, path: string, body?: unknown) => t.call(method, path, { key: b.key, body })
    const asC = (method: string, path: string, body?: unknown) => t.call(method, path, { key: c.key, body })
    const ids = (r: { body: { data: { items: Array<{ id: string }> } } }) => r.body.data.items.map((i) => i.id)

    async function publicTemplate(name: string, extra: Record<string, unknown> = {}) {
      const r = await asB('POST', '/v1/templates', {
        name,
        description: `${name} for tests`,
        visibility: 'public',
        tags: ['data'],
        templateProps: PROPS,
        definition: DEFINITION,
        ...extra,
      })
      expect(r.status).toBe(200)
      return r.body.data
    }

    it('publishes from a workflow, moderates by the operator organization only, and hides pending versions from others', async () => {
      const w = await createWorkflow(
        t,
        { name: 'source', description: 'from a workflow', definition: DEFINITION, cooldownMs: 5000 },
        b.key,
      )
      const created = await asB('POST', '/v1/templates', {
        name: 'Daily Digest',
        sourceWorkflowId: w.id,
        visibility: 'public',
        tags: ['data'],
        templateProps: PROPS,
      })
      expect(created.status).toBe(200)
      const tpl = created.body.data
      expect(tpl).toMatchObject({
        name: 'Daily Digest',
        slug: 'daily-digest',
        visibility: 'public',
        moderationStatus: 'pending',
        version: 1,
        forkCount: 0,
        sourceWorkflowId: w.id,
        cooldownMs: 5000,
        organizationId: b.orgId,
        organizationName: `tpl-b-${kind}`,
        archived: false,
        isPromoted: false,
        description: 'from a workflow',
        rejectionReason: '',
        reviewedBy: '',
      })
      expect(tpl.id).toMatch(/^tpl_/)
      expect(tpl.submittedAt).not.toBe('')
      expect(tpl.tags.map((x: { slug: string }) => x.slug)).toEqual(['data'])
      expect(tpl.definition.nodes.say.type).toBe('log')

      // Pending: invisible to others, visible to its owner.
      expect((await asC('GET', `/v1/templates/${tpl.id}`)).status).toBe(404)
      expect(ids(await asC('GET', '/v1/templates'))).not.toContain(tpl.id)
      expect(ids(await asB('GET', '/v1/templates'))).toContain(tpl.id)

      // The operator organization's queue holds every organization's submissions, at the version
      // that waits; another organization asking for pending ones sees only its own.
      const queue = (await t.call('GET', '/v1/templates?moderationStatus=pending')).body.data.items
      expect(queue.map((x: { id: string }) => x.id)).toContain(tpl.id)
      expect(queue.find((x: { id: string }) => x.id === tpl.id)).toMatchObject({
        moderationStatus: 'pending',
        version: 1,
        name: 'Daily Digest',
      })
      expect((await t.call('GET', `/v1/templates/${tpl.id}`)).body.data).toMatchObject({
        moderationStatus: 'pending',
        version: 1,
      })
      expect(ids(await asC('GET', '/v1/templates?moderationStatus=pending'))).not.toContain(tpl.id)

      // Only the operator organization's owners moderate; B's owner key cannot approve its own.
      const self = await asB('POST', `/v1/templates/${tpl.id}/approve`)
      expect(self.status).toBe(403)
      expect(self.body.details).toEqual([{ message: 'missing permission', permission: 'template:moderate' }])
      expect((await t.call('POST', `/v1/templates/${tpl.id}/reject`, { body: { rejectionReason: '' } })).status).toBe(
        400,
      )
      expect(
        (await t.call('POST', `/v1/templates/${tpl.id}/reject`, { body: { rejectionReason: 'x'.repeat(1001) } }))
          .status,
      ).toBe(400)
      const approved = await t.call('POST', `/v1/templates/${tpl.id}/approve`)
      expect(approved.status).toBe(200)
      expect(approved.body.data).toMatchObject({ moderationStatus: 'approved' })
      expect(approved.body.data.reviewedAt).not.toBe('')
      expect((await t.call('POST', `/v1/templates/${tpl.id}/approve`)).status).toBe(409)
      expect((await asC('GET', `/v1/templates/${tpl.id}`)).body.data).toMatchObject({
        name: 'Daily Digest',
        version: 1,
        moderationStatus: 'approved',
      })

      // A new version goes back to moderation; the public keeps version 1.
      const changed = await asB('PUT', `/v1/templates/${tpl.id}`, { name: 'Daily Digest 2' })
      expect(changed.body.data).toMatchObject({ version: 2, moderationStatus: 'pending', name: 'Daily Digest 2' })
      expect((await asC('GET', `/v1/templates/${tpl.id}`)).body.data).toMatchObject({
        name: 'Daily Digest',
        version: 1,
        moderationStatus: 'approved',
      })
      // The reviewer reads the version that waits, not the one the public sees.
      expect((await t.call('GET', `/v1/templates/${tpl.id}`)).body.data).toMatchObject({
        name: 'Daily Digest 2',
        version: 2,
        moderationStatus: 'pending',
      })
      expect((await asC('GET', `/v1/templates/${tpl.id}/versions/2`)).status).toBe(404)
      expect(
        (await asC('GET', `/v1/templates/${tpl.id}/versions`)).body.data.items.map(
          (v: { version: number }) => v.version,
        ),
      ).toEqual([1])
      expect(
        (await asB('GET', `/v1/templates/${tpl.id}/versions`)).body.data.items.map(
          (v: { version: number }) => v.version,
        ),
      ).toEqual([2, 1])
      const rejected = await t.call('POST', `/v1/templates/${tpl.id}/reject`, {
        body: { rejectionReason: 'the name says nothing new' },
      })
      expect(rejected.status).toBe(200)
      // The moderator's answer carries the decision it just made.
      expect(rejected.body.data).toMatchObject({
        moderationStatus: 'rejected',
        rejectionReason: 'the name says nothing new',
      })
      expect((await asB('GET', `/v1/templates/${tpl.id}`)).body.data).toMatchObject({
        moderationStatus: 'rejected',
        rejectionReason: 'the name says nothing new',
        version: 2,
      })
      expect((await asC('GET', `/v1/templates/${tpl.id}`)).body.data).toMatchObject({ version: 1, rejectionReason: '' })
      const log = (await asB('GET', `/v1/templates/${tpl.id}/moderation`)).body.data.items
      expect(log.map((m: { decision: string; version: number }) => [m.decision, m.version])).toEqual([
        ['approved', 1],
        ['rejected', 2],
      ])
      expect((await asC('GET', `/v1/templates/${tpl.id}/moderation`)).status).toBe(404)

      // Org templates are approved at once and never seen by others.
      const own = (await asB('POST', '/v1/templates', { name: 'Internal', definition: DEFINITION })).body.data
      expect(own).toMatchObject({ visibility: 'org', moderationStatus: 'approved' })
      expect((await asC('GET', `/v1/templates/${own.id}`)).status).toBe(404)
      expect((await t.call('POST', `/v1/templates/${own.id}/approve`)).status).toBe(409)
    })

    it('keeps every properties field of a prop that the specification lists, UI hints included', async () => {
      const properties = {
        inputType: 'textarea',
        visibleWhen: { mode: 'fast' },
        groupKey: 'advanced',
        placeholder: 'say more',
        allowedChannels: ['email'],
        chainPropKey: 'chain',
        showWalletBalances: true,
        sources: [{ nodeId: 'say', path: 'payload.message' }],
      }
      const columns = [{ key: 'city', required: true, width: 120 }]
      const r = await asB('POST', '/v1/templates', {
        name: 'Hinted',
        tags: ['data'],
        definition: DEFINITION,
        templateProps: [
          { key: 'note', name: 'Note', type: 'string', properties },
          {
            key: 'rows',
            name: 'Rows',
            type: 'object',
            properties: { inputType: 'csvTable', columns, summary: { sum: 'city' } },
          },
        ],
      })
      expect(r.status).toBe(200)
      const stored = (await asB('GET', `/v1/templates/${r.body.data.id}`)).body.data.templateProps
      expect(stored[0].properties).toEqual(properties)
      expect(stored[1].properties).toEqual({ inputType: 'csvTable', columns, summary: { sum: 'city' } })
    })

    it('refuses a template that would carry a secret, naming the path of each', async () => {
      const connector = (
        await t.call('POST', '/v1/connectors', {
          key: c.key,
          body: {
            type: 'chatapp',
            name: 'c chat',
            data: { teamId: `T-${kind}`, botToken: 'xoxb-not-a-real-token-000' },
          },
        })
      ).body.data
      const r = await asB('POST', '/v1/templates', {
        name: 'leaky',
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['call', 'post'] },
            call: {
              type: 'http-request',
              payload: {
                url: 'https://api.example.com/v1?api_key=abcdef123456',
                headers: { Authorization: 'Bearer abcdefghijklmnopqrstuvwxyz012345' },
              },
            },
            post: {
              type: 'log',
              connector: { id: connector.id },
              payload: { message: 'sk-abcdefghijklmnopqrstuvwxyz123456' },
            },
          },
        },
      })
      expect(r.status).toBe(400)
      const paths = r.body.details.map((d: { path: string }) => d.path).sort()
      expect(paths).toEqual([
        '/definition/nodes/call/payload/headers/Authorization',
        '/definition/nodes/call/payload/url',
        '/definition/nodes/post/connector/id',
        '/definition/nodes/post/payload/message',
      ])
      // Expressions are references, not secrets.
      const fine = await asB('POST', '/v1/templates', {
        name: 'fine',
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['say'] },
            say: {
              type: 'log',
              payload: { message: '{{$props.token}}', headers: { Authorization: '{{$props.token}}' } },
            },
          },
        },
      })
      expect(fine.status).toBe(200)
      const badProps = await asB('POST', '/v1/templates', {
        name: 'bad',
        definition: DEFINITION,
        templateProps: [
          { key: 'a', name: 'A', type: 'string', properties: { pattern: '([' } },
          { key: 'a', name: 'A', type: 'string' },
        ],
      })
      expect(badProps.body.details.map((d: { path: string }) => d.path)).toEqual([
        '/templateProps/0/properties/pattern',
        '/templateProps/1/key',
      ])
      expect(
        (await asB('POST', '/v1/templates', { name: 'no tag', definition: DEFINITION, tags: ['no-such-tag'] })).body
          .details,
      ).toEqual([{ path: '/tags/0', message: 'unknown tag no-such-tag' }])
      // The deprecated category is kept, and carried as a tag.
      const categorized = (
        await asB('POST', '/v1/templates', { name: 'categorized', definition: DEFINITION, category: 'Sales Ops' })
      ).body.data
      expect(categorized.category).toBe('Sales Ops')
      expect(categorized.tags.map((x: { slug: string; name: string }) => [x.slug, x.name])).toEqual([
        ['sales-ops', 'sales-ops'],
      ])
      expect(ids(await asB('GET', '/v1/templates?tags=sales-ops'))).toEqual([categorized.id])
      expect((await asB('PUT', `/v1/templates/${categorized.id}`, { description: 'still categorized' })).status).toBe(
        200,
      )
    })

    it('forks with props checked exactly, runs the fork with $props, seals and masks sensitive props, and counts forks', async () => {
      const tpl = await publicTemplate('Forkable')
      await t.call('POST', `/v1/templates/${tpl.id}/approve`)

      const invalid = await asC('POST', `/v1/templates/${tpl.id}/fork`, {
        propValues: {
          greeting: 'hi 2',
          count: 11,
          mode: 'medium',
          places: { city: ['Paris', ''], people: [3, -1] },
          extra: 1,
        },
      })
      expect(invalid.status).toBe(400)
      expect(
        invalid.body.details.map((d: { path: string; message: string }) => `${d.path} ${d.message}`).sort(),
      ).toEqual([
        '/propValues/count must be at most 10',
        '/propValues/extra not a prop of this template',
        '/propValues/greeting must match ^[A-Za-z ]+$',
        '/propValues/mode must be one of "fast", "slow"',
        '/propValues/places/city/1 required',
        '/propValues/places/people/1 must be at least 0',
      ])
      const tooFew = await asC('POST', `/v1/templates/${tpl.id}/fork`, {
        propValues: { greeting: 'hi', places: [{ city: 'Oslo' }] },
      })
      expect(tooFew.body.details).toEqual([{ path: '/propValues/places', message: 'must have at least 2 rows' }])
      const tooMany = await asC('POST', `/v1/templates/${tpl.id}/fork`, {
        propValues: { greeting: 'hi', places: { city: ['a', 'b', 'c', 'd'] } },
      })
      expect(tooMany.body.details).toEqual([{ path: '/propValues/places', message: 'must have at most 3 rows' }])
      expect((await asC('POST', `/v1/templates/${tpl.id}/fork`, { propValues: {} })).body.details).toEqual(
        [
          { path: '/propValues/greeting', message: 'required' },
          { path: '/propValues/places', message: 'must have at least 2 rows' },
        ].slice(0, 1),
      )

      const token = `secret-token-${crypto.randomUUID()}`
      const forked = await asC('POST', `/v1/templates/${tpl.id}/fork`, {
        name: 'My digest',
        propValues: {
          greeting: 'Hello there',
          mode: 'fast',
          token,
          places: [{ city: 'Oslo', people: 5 }, { city: 'Lima' }],
        },
      })
      expect(forked.status).toBe(200)
      const w = forked.body.data.workflow
      expect(w).toMatchObject({ name: 'My digest', sourceTemplateId: tpl.id, status: 'draft', organizationId: c.orgId })
      expect(forked.body.data.propValues).toEqual({
        greeting: 'Hello there',
        count: 3,
        mode: 'fast',
        token: '********',
        places: { city: ['Oslo', 'Lima'], people: [5, null] },
      })
      expect((await asC('GET', `/v1/templates/${tpl.id}`)).body.data.forkCount).toBe(1)

      // The sensitive value is sealed at rest.
      const row = await t.system.store.get<{ prop_values: string; sealed_props: string }>(
        'SELECT prop_values, sealed_props FROM workflows WHERE id = $1',
        [w.id],
      )
      expect(row!.prop_values).not.toContain(token)
      expect(row!.sealed_props).not.toContain(token)
      expect(JSON.parse(row!.prop_values)).toMatchObject({
        greeting: 'Hello there',
        places: { city: ['Oslo', 'Lima'] },
      })

      await publish(t, w.id, c.key)
      const run = await runAndWait(
        { ...t, call: (m, p, o = {}) => t.call(m, p, { key: c.key, ...o }) } as TestSystem,
        w.id,
      )
      expect(run.status).toBe('success')
      // The node read every prop; the sensitive one is masked in what the run answers and stores.
      expect(run.nodes.say.result.message).toEqual({ greeting: 'Hello there', cities: ['Oslo', 'Lima'], token: '••••' })
      const stored = await t.system.store.all<{ data: string }>('SELECT data FROM events WHERE run_id = $1', [
        run.id ?? run.runId,
      ])
      expect(stored.length).toBeGreaterThan(0)
      for (const e of stored) expect(e.data).not.toContain(token)
      const runRow = await t.system.store.get<{ prop_values: string; snapshot: string | null }>(
        'SELECT prop_values, snapshot FROM runs WHERE id = $1',
        [run.id ?? run.runId],
      )
      expect(runRow!.prop_values).not.toContain(token)
      expect(runRow!.snapshot ?? '').not.toContain(token)
    })

    it('promotes approved public templates only, lists them first, and drops archived ones from listings', async () => {
      const first = await publicTemplate('Promo one')
      const second = await publicTemplate('Promo two')
      expect((await t.call('POST', `/v1/templates/${first.id}/promote`, { body: { order: 1 } })).status).toBe(409)
      for (const x of [first, second]) await t.call('POST', `/v1/templates/${x.id}/approve`)
      expect((await asB('POST', `/v1/templates/${first.id}/promote`, { order: 1 })).status).toBe(403)
      const promoted = await t.call('POST', `/v1/templates/${second.id}/promote`, { body: { order: 0 } })
      expect(promoted.body.data).toMatchObject({ isPromoted: true, promotedOrder: 0 })
      expect(promoted.body.data.promotedAt).not.toBe('')
      await t.call('POST', `/v1/templates/${first.id}/promote`, { body: { order: 5 } })
      const listed = ids(await asC('GET', '/v1/templates?promoted=true'))
      expect(listed.slice(0, 2)).toEqual([second.id, first.id])
      expect(ids(await asC('GET', '/v1/templates')).slice(0, 2)).toEqual([second.id, first.id])
      const unpromoted = await t.call('DELETE', `/v1/templates/${first.id}/promote`)
      expect(unpromoted.body.data).toMatchObject({ isPromoted: false, promotedOrder: null, promotedAt: '' })

      expect((await asB('DELETE', `/v1/templates/${second.id}`)).body.data.archived).toBe(true)
      expect(ids(await asC('GET', '/v1/templates?limit=100'))).not.toContain(second.id)
      expect(ids(await asB('GET', '/v1/templates?limit=100'))).not.toContain(second.id)
      expect(ids(await asB('GET', '/v1/templates?archived=true&limit=100'))).toContain(second.id)
      expect((await asC('GET', `/v1/templates/${second.id}`)).status).toBe(404)
      expect((await asB('POST', `/v1/templates/${second.id}/unarchive`)).body.data.archived).toBe(false)
      expect(ids(await asC('GET', '/v1/templates?limit=100'))).toContain(second.id)
    })

    it('finds templates by search and by tags (all must match), with filters and sorts', async () => {
      await t.call('POST', '/v1/tags', {
        body: { slug: `weather-${kind}`, name: 'Weather', description: 'forecasts and storms', weight: 50 },
      })
      const storm = await publicTemplate('Storm Watcher', {
        description: 'alerts before the rain',
        tags: ['data', `weather-${kind}`],
      })
      const other = await publicTemplate('Invoice Sender', { description: 'bills customers', tags: ['data'] })
      for (const x of [storm, other]) await t.call('POST', `/v1/templates/${x.id}/approve`)
      expect(ids(await asC('GET', '/v1/templates?search=STORM'))).toEqual([storm.id])
      expect(ids(await asC('GET', '/v1/templates?search=rain'))).toEqual([storm.id])
      // Tag names are searched too.
      expect(ids(await asC('GET', '/v1/templates?search=weather'))).toEqual([storm.id])
      expect(ids(await asC('GET', `/v1/templates?tags=data,weather-${kind}`))).toEqual([storm.id])
      expect(ids(await asC('GET', `/v1/templates?tags=data&tags=weather-${kind}`))).toEqual([storm.id])
      expect(ids(await asC('GET', '/v1/templates?tags=data&limit=100'))).toEqual(
        expect.arrayContaining([storm.id, other.id]),
      )
      expect(ids(await asC('GET', `/v1/templates?organizationId=${c.orgId}`))).toEqual([])
      expect(ids(await asC('GET', '/v1/templates?search=50%25_off'))).toEqual([])
      const byName = (await asC('GET', '/v1/templates?sort=name&limit=100')).body.data.items.map(
        (x: { name: string }) => x.name,
      )
      expect(byName).toEqual([...byName].sort((a: string, z: string) => a.toLowerCase().localeCompare(z.toLowerCase())))
      for (const bad of ['sort=best', 'visibility=secret', 'moderationStatus=maybe', 'promoted=perhaps', 'limit=0']) {
        const r = await asC('GET', `/v1/templates?${bad}`)
        expect(r.status).toBe(400)
        expect(r.body.code).toBe(400)
      }
    })

    it('counts tags per scope, filters and sorts them, and needs the bypass key above 1000', async () => {
      const slug = `count-${kind}`
      expect((await asB('POST', '/v1/tags', { slug, name: 'Count' })).status).toBe(403)
      const tag = (
        await t.call('POST', '/v1/tags', {
          body: { slug, name: 'Count me', description: 'for counting', categories: ['testing'], weight: 7 },
        })
      ).body.data
      expect(tag).toMatchObject({ slug, name: 'Count me', weight: 7, categories: ['testing'], count: 0 })
      expect((await t.call('POST', '/v1/tags', { body: { slug, name: 'again' } })).status).toBe(409)
      const pub = await publicTemplate('Counted public', { tags: [slug] })
      await t.call('POST', `/v1/templates/${pub.id}/approve`)
      await t.call('POST', `/v1/templates/${pub.id}/promote`, { body: { order: 3 } })
      await asB('POST', '/v1/templates', { name: 'Counted org', definition: DEFINITION, tags: [slug] })
      await asB('POST', '/v1/templates', {
        name: 'Counted pending',
        definition: DEFINITION,
        tags: [slug],
        visibility: 'public',
      })
      const countIn = async (scope: string, key = b.key) =>
        (await t.call('GET', `/v1/tags?search=count me&scope=${scope}`, { key })).body.data.items.find(
          (x: { slug: string }) => x.slug === slug,
        )
      expect(await countIn('templates_public')).toMatchObject({
        count: 1,
        publicTemplateCount: 1,
        promotedTemplateCount: 1,
      })
      expect((await countIn('templates_promoted')).count).toBe(1)
      expect((await countIn('templates_org')).count).toBe(3)
      expect((await countIn('templates_org', c.key)).count).toBe(0)
      expect((await countIn('all')).count).toBe(4)
      expect((await countIn('actions')).count).toBe(0)
      // Catalog tags are counted by kind of entry.
      const core = (await t.call('GET', '/v1/tags?scope=actions&limit=1000', { key: c.key })).body.data.items.find(
        (x: { slug: string }) => x.slug === 'core',
      )
      expect(core.count).toBeGreaterThan(0)
      expect(core.name).toBe('core')
      expect(
        (await t.call('GET', '/v1/tags?category=testing&limit=1000')).body.data.items.map(
          (x: { slug: string }) => x.slug,
        ),
      ).toEqual([slug])
      const byCount = (await t.call('GET', '/v1/tags?sortByCount=true&scope=actions&limit=1000')).body.data.items.map(
        (x: { count: number }) => x.count,
      )
      expect(byCount).toEqual([...byCount].sort((a: number, z: number) => z - a))
      const byWeight = (await t.call('GET', '/v1/tags?limit=1000')).body.data.items.map(
        (x: { weight: number }) => x.weight,
      )
      expect(byWeight).toEqual([...byWeight].sort((a: number, z: number) => z - a))
      const page = (await t.call('GET', '/v1/tags?limit=2&offset=1')).body.data
      expect(page).toMatchObject({ limit: 2, offset: 1, hasMore: true })
      expect(page.items).toHaveLength(2)

      expect((await t.call('GET', '/v1/tags?limit=5000')).status).toBe(400)
      expect((await t.call('GET', '/v1/tags?limit=5000&pagination_bypass_key=wrong')).status).toBe(400)
      const bypassed = await t.call('GET', `/v1/tags?limit=5000&pagination_bypass_key=${BYPASS}`)
      expect(bypassed.status).toBe(200)
      expect(bypassed.body.data.limit).toBe(5000)
      expect((await t.call('GET', `/v1/tags?limit=10001&pagination_bypass_key=${BYPASS}`)).status).toBe(400)
      for (const bad of ['scope=everything', 'sortByCount=maybe', 'offset=-1'])
        expect((await t.call('GET', `/v1/tags?${bad}`)).status).toBe(400)

      // A slug in use cannot change; a tag record can be removed and the slug is still listed.
      expect((await t.call('PUT', `/v1/tags/${tag.id}`, { body: { slug: `renamed-${kind}` } })).status).toBe(409)
      expect((await t.call('PUT', `/v1/tags/${tag.id}`, { body: { weight: 9 } })).body.data.weight).toBe(9)
      expect((await t.call('DELETE', `/v1/tags/${tag.id}`)).status).toBe(200)
      const listed = (await t.call('GET', '/v1/tags?limit=1000')).body.data.items.find(
        (x: { slug: string }) => x.slug === slug,
      )
      expect(listed).toMatchObject({ name: slug, id: '' })
    })

    it("ranks a person's interest tags first only while their switch is on", async () => {
      const slug = `interest-${kind}`
      await t.call('POST', '/v1/tags', { body: { slug, name: 'Interest' } })
      const plain = await publicTemplate('Plain pick')
      const liked = await publicTemplate('Liked pick', { tags: ['data', slug] })
      for (const x of [plain, liked]) {
        await t.call('POST', `/v1/templates/${x.id}/approve`)
        await t.call('POST', `/v1/templates/${x.id}/promote`, { body: { order: 100 } })
      }
      // Plain is promoted ahead.
      await t.call('POST', `/v1/templates/${plain.id}/promote`, { body: { order: 99 } })
      const person = await addMember({ ...t, key: c.key } as TestSystem, `reader-${kind}@example.com`, 'viewer', {
        inviterKey: c.key,
      })
      const call = asSession(t, person.token)
      expect((await call('PUT', '/v1/user/interests', { body: { tags: [slug] } })).status).toBe(200)
      const order = async (query = '') =>
        ids(await call('GET', `/v1/templates?promoted=true&limit=100${query}`)).filter(
          (id) => id === plain.id || id === liked.id,
        )
      expect(await order()).toEqual([plain.id, liked.id])
      await call('PUT', '/v1/user/interests/settings', { body: { enabled: true } })
      expect(await order()).toEqual([liked.id, plain.id])
      // An explicit sort is never personalised.
      expect(await order('&sort=promoted')).toEqual([plain.id, liked.id])
      const tagsListed = (await call('GET', '/v1/tags?limit=1000')).body.data.items
      expect(tagsListed.find((x: { slug: string }) => x.slug === slug).interested).toBe(true)
      expect(tagsListed.find((x: { slug: string }) => x.slug === 'data').interested).toBe(false)
      await call('PUT', '/v1/user/interests/settings', { body: { enabled: false } })
      expect(await order()).toEqual([plain.id, liked.id])
      expect((await call('GET', '/v1/tags?limit=1000')).body.data.items[0].interested).toBeUndefined()
    })

    it("serves a workflow's widget page, sandboxes its app, and clones the app into a fork", async () => {
      const live = await createWorkflow(
        t,
        {
          name: 'tip jar',
          visibility: 'public_execute',
          publicWidgetConfig: {
            enabled: true,
            title: 'Tip <us>',
            description: 'thanks',
            buttonLabel: 'Send',
            minAmount: '1',
            maxAmount: '100',
          },
          definition: {
            triggerNodeIds: ['root'],
            nodes: {
              root: { type: 'manual', children: ['say'] },
              say: { type: 'log', payload: { message: '{{$trigger.body.amount}}' } },
            },
          },
        },
        b.key,
      )
      expect((await t.call('GET', `/w/${live.id}/`, { key: null })).status).toBe(404)
      await publish(t, live.id, b.key)
      const page = await t.call('GET', `/w/${live.id}/`, { key: null })
      expect(page.status).toBe(200)
      expect(page.headers.get('content-type')).toContain('text/html')
      expect(page.body).toContain('Tip &#60;us&#62;')
      expect(page.body).toContain('min="1"')
      expect(page.body).toContain('max="100"')
      expect(page.body).toContain(`/v1/public/workflows/${live.id}/run`)
      const started = await t.call('POST', `/v1/public/workflows/${live.id}/run`, {
        key: null,
        body: { payload: { amount: '5' } },
      })
      expect(started.status).toBe(200)
      expect(started.headers.get('access-control-allow-origin')).toBe('*')

      const app = await asB('POST', '/v1/apps', {
        name: 'jar app',
        files: { 'index.html': '<h1>jar</h1><script src="app.js"></script>', 'app.js': 'console.log(1)' },
      })
      expect(app.status).toBe(200)
      expect(app.body.data).toMatchObject({ name: 'jar app', version: 1 })
      expect((await asB('POST', '/v1/apps', { name: 'bad', files: { '../etc/passwd': 'x' } })).status).toBe(400)
      expect(
        (await asB('POST', '/v1/apps', { name: 'big', files: { 'a.txt': 'x'.repeat(2 * 1024 * 1024 + 1) } })).status,
      ).toBe(400)
      const v2 = await asB('PUT', `/v1/apps/${app.body.data.id}`, {
        files: { 'index.html': '<h1>jar v2</h1>', 'app.js': 'console.log(2)' },
      })
      expect(v2.body.data.version).toBe(2)
      expect((await asB('GET', `/v1/apps/${app.body.data.id}/versions/1`)).body.data.files['index.html']).toContain(
        '<h1>jar</h1>',
      )
      expect((await asC('GET', `/v1/apps/${app.body.data.id}`)).status).toBe(404)
      expect((await asB('PUT', `/v1/workflows/${live.id}/app`, { appId: app.body.data.id })).status).toBe(200)
      const served = await t.call('GET', `/w/${live.id}/`, { key: null })
      expect(served.body).toBe('<h1>jar v2</h1>')
      expect(served.headers.get('content-security-policy')).toContain('sandbox allow-scripts')
      const script = await t.call('GET', `/w/${live.id}/app.js`, { key: null })
      expect(script.headers.get('content-type')).toContain('text/javascript')
      expect((await t.call('GET', `/w/${live.id}/missing.js`, { key: null })).status).toBe(404)

      // A template pinned to version 1 of the app: the fork gets a copy of that version.
      const tpl = (
        await asB('POST', '/v1/templates', {
          name: 'Tip jar template',
          sourceWorkflowId: live.id,
          visibility: 'public',
          generatedAppId: app.body.data.id,
          generatedAppVersionId: app.body.data.versionId,
        })
      ).body.data
      expect(tpl).toMatchObject({ generatedAppId: app.body.data.id, generatedAppVersionId: app.body.data.versionId })
      await t.call('POST', `/v1/templates/${tpl.id}/approve`)
      const fork = await asC('POST', `/v1/templates/${tpl.id}/fork`, {})
      expect(fork.status).toBe(200)
      const clonedId = fork.body.data.appId
      expect(clonedId).toMatch(/^app_/)
      expect(clonedId).not.toBe(app.body.data.id)
      const cloned = await asC('GET', `/v1/apps/${clonedId}`)
      expect(cloned.body.data).toMatchObject({ organizationId: c.orgId, version: 1 })
      expect(cloned.body.data.files['index.html']).toContain('<h1>jar</h1>')
    })

    /** The `index.html` a fork by `as` receives (null: no app), and the fork's answer. */
    async function forkedPage(as: typeof asB, templateId: string): Promise<string | null> {
      const fork = await as('POST', `/v1/templates/${templateId}/fork`, {})
      expect(fork.status).toBe(200)
      if (fork.body.data.appId === '') return null
      return (await as('GET', `/v1/apps/${fork.body.data.appId}`)).body.data.files['index.html']
    }
    const newApp = async (as: typeof asB, name: string, page: string) =>
      (await as('POST', '/v1/apps', { name, files: { 'index.html': page } })).body.data
    const status = async (id: string) => (await asB('GET', `/v1/templates/${id}`)).body.data

    it('hands other organizations the app version approval pinned, and sends a changed app back to review', async () => {
      const app = await newApp(asB, 'pinned by approval', '<h1>reviewed</h1>')
      const tpl = (
        await asB('POST', '/v1/templates', {
          name: 'App follower',
          visibility: 'public',
          definition: DEFINITION,
          generatedAppId: app.id,
        })
      ).body.data
      expect((await t.call('POST', `/v1/templates/${tpl.id}/approve`)).status).toBe(200)
      expect((await asC('GET', `/v1/templates/${tpl.id}`)).body.data).toMatchObject({
        generatedAppId: app.id,
        generatedAppVersionId: app.versionId,
      })

      // New files after approval: the template goes back to review, forkers keep the reviewed files.
      expect((await asB('PUT', `/v1/apps/${app.id}`, { files: { 'index.html': '<h1>swapped</h1>' } })).status).toBe(200)
      expect(await status(tpl.id)).toMatchObject({ moderationStatus: 'pending', version: 1 })
      expect(await forkedPage(asC, tpl.id)).toBe('<h1>reviewed</h1>')
      expect((await asC('GET', `/v1/templates/${tpl.id}`)).body.data).toMatchObject({
        moderationStatus: 'approved',
        generatedAppVersionId: app.versionId,
      })
      // The author's own organization forks what the template names now.
      expect(await forkedPage(asB, tpl.id)).toBe('<h1>swapped</h1>')
      // Approved again: the new files are what was reviewed.
      expect((await t.call('POST', `/v1/templates/${tpl.id}/approve`)).status).toBe(200)
      expect(await forkedPage(asC, tpl.id)).toBe('<h1>swapped</h1>')

      // Re-pointing generatedAppId is a change to review too; the public keeps the approved app.
      const other = await newApp(asB, 'another app', '<h1>other</h1>')
      const repointed = await asB('PUT', `/v1/templates/${tpl.id}`, { generatedAppId: other.id })
      expect(repointed.status).toBe(200)
      expect(repointed.body.data).toMatchObject({ moderationStatus: 'pending', version: 1, generatedAppId: other.id })
      expect(await forkedPage(asC, tpl.id)).toBe('<h1>swapped</h1>')
      expect((await asC('GET', `/v1/templates/${tpl.id}`)).body.data.generatedAppId).toBe(app.id)

      // So is pinning a version; a pinned template stays approved when its app changes, as a version never does.
      expect((await t.call('POST', `/v1/templates/${tpl.id}/approve`)).status).toBe(200)
      expect(
        (await asB('PUT', `/v1/templates/${tpl.id}`, { generatedAppVersionId: other.versionId })).body.data,
      ).toMatchObject({ moderationStatus: 'pending' })
      expect((await t.call('POST', `/v1/templates/${tpl.id}/approve`)).status).toBe(200)
      expect((await asB('PUT', `/v1/apps/${other.id}`, { files: { 'index.html': '<h1>other v2</h1>' } })).status).toBe(
        200,
      )
      expect(await status(tpl.id)).toMatchObject({ moderationStatus: 'approved' })
      expect(await forkedPage(asC, tpl.id)).toBe('<h1>other</h1>')

      // Clearing the app is a change as well; until approved, forkers still get the approved app.
      expect((await asB('PUT', `/v1/templates/${tpl.id}`, { generatedAppId: null })).body.data).toMatchObject({
        moderationStatus: 'pending',
        generatedAppId: '',
      })
      expect(await forkedPage(asC, tpl.id)).toBe('<h1>other</h1>')
      expect((await t.call('POST', `/v1/templates/${tpl.id}/approve`)).status).toBe(200)
      expect(await forkedPage(asC, tpl.id)).toBeNull()
      const log = (await asB('GET', `/v1/templates/${tpl.id}/moderation`)).body.data.items
      expect(log.map((m: { decision: string }) => m.decision)).toEqual([
        'approved',
        'approved',
        'approved',
        'approved',
        'approved',
      ])
    })

    it("refuses another organization's app version on update as on create, and never forks another organization's files", async () => {
      const theirs = await newApp(asC, 'c private app', '<h1>c private</h1>')
      const mine = await newApp(asB, 'b app', '<h1>b app</h1>')
      const foreign = { generatedAppId: mine.id, generatedAppVersionId: theirs.versionId }
      expect(
        (await asB('POST', '/v1/templates', { name: 'Borrower', definition: DEFINITION, ...foreign })).status,
      ).toBe(400)

      for (const visibility of ['public', 'org']) {
        const tpl = (
          await asB('POST', '/v1/templates', {
            name: `Borrower ${visibility}`,
            visibility,
            definition: DEFINITION,
            generatedAppId: mine.id,
          })
        ).body.data
        if (visibility === 'public') expect((await t.call('POST', `/v1/templates/${tpl.id}/approve`)).status).toBe(200)
        const before = await status(tpl.id)
        for (const body of [{ generatedAppVersionId: theirs.versionId }, foreign, { generatedAppId: theirs.id }]) {
          const r = await asB('PUT', `/v1/templates/${tpl.id}`, { ...body, description: 'nothing of this is kept' })
          expect(r.status).toBe(400)
          expect(r.body.details[0].path).toBe(
            body.generatedAppId === theirs.id ? '/generatedAppId' : '/generatedAppVersionId',
          )
        }
        expect(await status(tpl.id)).toEqual(before)
        expect(await forkedPage(asB, tpl.id)).toBe('<h1>b app</h1>')
        if (visibility === 'public') expect(await forkedPage(asC, tpl.id)).toBe('<h1>b app</h1>')
      }

      // A reference stored before references were checked (written here straight to the store):
      // forks read versions only through the template organization's apps, so they get no app,
      // and approval refuses to pin it.
      const legacy = (
        await asB('POST', '/v1/templates', {
          name: 'Legacy borrower',
          visibility: 'public',
          definition: DEFINITION,
          generatedAppId: mine.id,
        })
      ).body.data
      await t.system.store.write((tx) =>
        templates.update(tx, legacy.id, { generated_app_version_id: theirs.versionId }),
      )
      expect(await forkedPage(asB, legacy.id)).toBeNull()
      expect((await t.call('POST', `/v1/templates/${legacy.id}/approve`)).status).toBe(409)
      await t.system.store.write((tx) =>
        templates.update(tx, legacy.id, { generated_app_id: theirs.id, generated_app_version_id: null }),
      )
      expect(await forkedPage(asB, legacy.id)).toBeNull()
      expect((await t.call('POST', `/v1/templates/${legacy.id}/approve`)).status).toBe(409)
      expect(await status(legacy.id)).toMatchObject({ moderationStatus: 'pending' })
    })

    it('checks permissions: reading needs workflow:read, writing template:write, forking workflow:create', async () => {
      const reader = (await asB('POST', '/v1/api-keys', { name: 'reader', scope: 'read' })).body.data.key
      expect((await t.call('GET', '/v1/templates', { key: reader })).status).toBe(200)
      expect(
        (await t.call('POST', '/v1/templates', { key: reader, body: { name: 'x', definition: DEFINITION } })).status,
      ).toBe(403)
      expect((await t.call('GET', '/v1/templates', { key: null })).status).toBe(401)
      const tpl = (await asB('POST', '/v1/templates', { name: 'perm', definition: DEFINITION })).body.data
      expect((await t.call('POST', `/v1/templates/${tpl.id}/fork`, { key: reader, body: {} })).status).toBe(403)
      expect((await asC('PUT', `/v1/templates/${tpl.id}`, { name: 'mine now' })).status).toBe(404)
      expect((await asC('DELETE', `/v1/templates/${tpl.id}`)).status).toBe(404)
      expect((await asB('POST', '/v1/templates', { name: 'dup', slug: 'perm', definition: DEFINITION })).status).toBe(
        409,
      )
      expect((await asB('POST', '/v1/templates', { name: 'perm', definition: DEFINITION })).body.data.slug).toMatch(
        /^perm-/,
      )
      expect((await asB('POST', '/v1/templates', { name: 'nothing' })).status).toBe(400)
      expect((await asB('POST', '/v1/templates', { name: 'x', sourceWorkflowId: 'wf_nope' })).status).toBe(400)
    })
  })
}
