import { addMember } from '../helpers/people.ts'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createWorkflow, linear, publish } from '../helpers/workflows.ts'

const simple = linear({ say: { type: 'log', payload: { message: 'hello {{root.result.body.name}}' } } }, ['say'])

const FULL = {
  name: 'Everything',
  description: 'round trip',
  aiName: 'AI name',
  aiDescription: 'AI description',
  nameManuallySet: true,
  descManuallySet: false,
  conversationId: 'conv_1',
  visibility: 'org',
  cooldownMs: 1500,
  maxRuns: 10,
  publicRunCooldownSeconds: 30,
  publicRunDailyLimit: 5,
  publicWidgetConfig: {
    enabled: true,
    title: 'Tip',
    description: 'Send a tip',
    buttonLabel: 'Send',
    minAmount: '100',
    maxAmount: '100000',
  },
  fundAutoSwapConfig: {
    enabled: true,
    maxSwapAmountUsd: 50.5,
    mode: 'on_demand',
    sources: [
      { id: 's1', chainId: 8453, walletId: 'w1', tokenAddress: 'native', tokenDecimals: 18, priority: 1 },
      { id: 's2', chainId: 1, walletId: 'w2', tokenAddress: '0xabc', tokenDecimals: 6, priority: 2, slippageBps: 50 },
    ],
  },
  x402Config: {
    chainId: 8453,
    price: '10000',
    token: '0xtoken',
    recipient: '0xrecipient',
    discoverable: true,
    discoveryInput: { example: { q: 'x' }, schema: { type: 'object' } },
    discoveryOutput: { example: { a: 1 }, schema: { type: 'object' } },
    discoveryMetadata: {
      name: 'Paid',
      description: 'd',
      category: 'data',
      provider: 'me',
      documentation: 'https://docs.example',
      logo: 'https://logo.example',
      tags: ['a', 'b'],
    },
  },
  variableDefs: [{ name: 'counter', type: 'number', default: 0, description: 'runs so far', lifetime: 'persist' }],
  uiMetadata: {
    comments: [
      {
        id: 'c1',
        nodeId: 'say',
        text: 'check this',
        resolved: false,
        position: { x: 1, y: 2 },
        createdBy: { clientId: 'u1', name: 'Ann' },
        createdAt: '2026-01-01T00:00:00Z',
        updatedAt: '2026-01-01T00:00:00Z',
        replies: [
          {
            id: 'r1',
            text: 'ok',
            createdAt: '2026-01-01T00:00:01Z',
            updatedAt: '2026-01-01T00:00:01Z',
            createdBy: { clientId: 'u2', name: 'Bo' },
          },
        ],
      },
    ],
    nodePositions: { root: { x: 0, y: 0 }, say: { x: 200, y: 0 } },
    stickyNotes: [
      {
        id: 'n1',
        text: 'remember',
        color: 'yellow',
        position: { x: 5, y: 5 },
        size: { width: 100, height: 50 },
        zIndex: 2,
        createdBy: { clientId: 'u1', name: 'Ann' },
        createdAt: '2026-01-01T00:00:00Z',
        updatedAt: '2026-01-01T00:00:00Z',
      },
    ],
  },
  sourceTemplateId: 'tpl_1',
  definition: {
    ...simple,
    inputSchema: [{ key: 'name', type: 'string', description: 'who', required: false }],
    variableDefs: [{ name: 'counter', type: 'number', default: 0, lifetime: 'persist' }],
    sensitivePropKeys: [],
  },
}

for (const kind of storeKinds()) {
  describe(`workflows (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t.close())

    it('creates a draft, version 1, with every field of the specification round-tripping', async () => {
      // The auto-swap sources name wallets of the organization.
      for (const source of FULL.fundAutoSwapConfig.sources) {
        source.walletId = (await t.call('POST', '/v1/wallets', { body: { name: source.id } })).body.data.id
      }
      const w = await createWorkflow(t, FULL)
      expect(w.id).toMatch(/^wf_/)
      expect(w).toMatchObject({
        version: 1,
        status: 'draft',
        type: 'manual',
        hasDraft: false,
        hasLiveVersion: false,
        liveVersionPaused: false,
        organizationId: t.orgId,
      })
      expect(w.triggerSecret.length).toBeGreaterThanOrEqual(40)
      for (const [key, value] of Object.entries(FULL)) {
        if (key === 'fundAutoSwapConfig') continue
        // A node saved without a typeVersion gets the latest version of its type.
        if (key === 'definition') expect(w[key]).toMatchObject(value as object)
        else expect(w[key]).toEqual(value)
      }
      expect(w.fundAutoSwapConfig.sources[0].slippageBps).toBe(300)
      expect(w.fundAutoSwapConfig.sources[1].slippageBps).toBe(50)
      expect(w.versionCreatedBy).toBe(w.createdBy)
      const again = (await t.call('GET', `/v1/workflows/${w.id}`)).body.data
      expect(again).toEqual(w)
    })

    it('checks fundAutoSwapConfig: wallets of the organization, unique source ids, a known mode', async () => {
      const wallet = (await t.call('POST', '/v1/wallets', { body: { name: 'swap' } })).body.data.id
      const other = await t.newOrganization(`swap-other-${kind}`)
      const foreign = (await t.call('POST', '/v1/wallets', { key: other.key, body: { name: 'theirs' } })).body.data.id
      const source = { chainId: 8453, tokenAddress: 'native', tokenDecimals: 18, priority: 1 }
      const r = await t.call('POST', '/v1/workflows', {
        body: {
          definition: FULL.definition,
          fundAutoSwapConfig: {
            mode: 'sometimes',
            sources: [
              { ...source, id: 'a', walletId: wallet },
              { ...source, id: 'a', walletId: foreign },
              { ...source, id: 'b', walletId: 'wal_nope' },
            ],
          },
        },
      })
      expect(r.status).toBe(400)
      expect(r.body.details).toEqual([
        { path: '/fundAutoSwapConfig/mode', message: 'must be on_demand or keep_balance' },
        { path: '/fundAutoSwapConfig/sources/1/id', message: 'duplicate source id a' },
        { path: '/fundAutoSwapConfig/sources/1/walletId', message: `no wallet ${foreign} in this organization` },
        { path: '/fundAutoSwapConfig/sources/2/walletId', message: 'no wallet wal_nope in this organization' },
      ])
      const slippage = await t.call('POST', '/v1/workflows', {
        body: {
          definition: FULL.definition,
          fundAutoSwapConfig: { sources: [{ ...source, id: 'a', walletId: wallet, slippageBps: 10_001 }] },
        },
      })
      expect(slippage.status).toBe(400)
      const ok = await createWorkflow(t, {
        definition: FULL.definition,
        fundAutoSwapConfig: { mode: 'keep_balance', sources: [{ ...source, id: 'a', walletId: wallet }] },
      })
      const changed = await t.call('PUT', `/v1/workflows/${ok.id}`, {
        body: { fundAutoSwapConfig: { sources: [{ ...source, id: 'a', walletId: foreign }] } },
      })
      expect(changed.status).toBe(400)
      expect(changed.body.details[0].path).toBe('/fundAutoSwapConfig/sources/0/walletId')
    })

    it('lists every problem of an invalid definition in details', async () => {
      const r = await t.call('POST', '/v1/workflows', {
        body: {
          name: 'broken',
          definition: {
            triggerNodeIds: ['root'],
            nodes: {
              root: { type: 'manual', payload: {}, children: ['a', 'ghost'] },
              a: { type: 'no-such-node', payload: {}, children: ['b'] },
              b: { type: 'log', payload: {}, children: ['c'] },
              c: { type: 'delay', payload: { delayMs: 'soon' }, children: ['d'] },
              d: { type: 'log', payload: { message: '{{later.result}} and {{nowhere.result}}' }, children: ['later'] },
              later: { type: 'log', payload: { message: 'x' } },
            },
          },
        },
      })
      expect(r.status).toBe(400)
      const messages = r.body.details.map((d: { path: string; message: string }) => `${d.path}: ${d.message}`)
      expect(messages).toContainEqual(
        expect.stringContaining('/definition/nodes/root/children/1: "ghost" is not a node'),
      )
      expect(messages).toContainEqual(
        expect.stringContaining('/definition/nodes/a/type: unknown node type "no-such-node"'),
      )
      expect(messages.length).toBeGreaterThanOrEqual(2)
      // Once the shape is right, payloads and references are checked, each problem listed.
      const r2 = await t.call('POST', '/v1/workflows', {
        body: {
          definition: {
            triggerNodeIds: ['root'],
            nodes: {
              root: { type: 'manual', payload: {}, children: ['b'] },
              b: { type: 'log', payload: {}, children: ['c'] },
              c: { type: 'delay', payload: { delayMs: 'soon' }, children: ['d'] },
              d: {
                type: 'log',
                payload: { message: '{{later.result}} and {{nowhere.result}} and {{c.result.delayedMs}}' },
                children: ['later'],
              },
              later: { type: 'log', payload: { message: 'x' } },
            },
          },
        },
      })
      expect(r2.status).toBe(400)
      const m2 = r2.body.details.map((d: { path: string; message: string }) => `${d.path}: ${d.message}`)
      expect(m2).toContainEqual(expect.stringContaining('/definition/nodes/b/payload'))
      expect(m2).toContainEqual(expect.stringContaining('/definition/nodes/c/payload/delayMs'))
      expect(m2).toContainEqual(expect.stringContaining('"later", which does not run before this node'))
      expect(m2).toContainEqual(expect.stringContaining('"nowhere", which is not a node'))
      expect(m2.some((m: string) => m.includes('{{c.result'))).toBe(false)
    })

    it('checks what a wait node waits for: a trigger type that takes waits, matched on fields of its wait schema', async () => {
      const waitingOn = (payload: Record<string, unknown>) =>
        t.call('POST', '/v1/workflows/validate', {
          body: {
            definition: {
              triggerNodeIds: ['root'],
              nodes: { root: { type: 'manual', children: ['hold'] }, hold: { type: 'wait', payload } },
            },
          },
        })
      const problems = async (payload: Record<string, unknown>) => {
        const r = await waitingOn(payload)
        return r.body.data.errors.map((d: { path: string; message: string }) => `${d.path}: ${d.message}`)
      }
      expect(await problems({ triggerType: 'no-such-trigger' })).toEqual([
        expect.stringContaining('/nodes/hold/payload/triggerType: unknown trigger type'),
      ])
      expect(await problems({ triggerType: 'cronjob' })).toEqual([
        expect.stringContaining('fires on a schedule and cannot be waited for'),
      ])
      expect(await problems({ triggerType: 'manual' })).toEqual([
        expect.stringContaining('"manual" cannot be waited for'),
      ])
      expect(await problems({ triggerType: 'erc20-receive', triggerConfig: { transactionHash: 42 } })).toEqual([
        expect.stringContaining('/nodes/hold/payload/triggerConfig/transactionHash'),
      ])
      for (const fine of [
        {},
        { triggerType: 'erc20-receive', triggerConfig: { transactionHash: `0x${'ab'.repeat(32)}` } },
        { triggerType: 'erc20-receive', triggerConfig: { transactionHash: '{{root.result.body.hash}}' } },
      ]) {
        expect((await waitingOn(fine)).body.data).toMatchObject({ valid: true, errors: [] })
      }
    })

    it('refuses cycles and the triggerNodeIds misuses', async () => {
      const cycle = await t.call('POST', '/v1/workflows/validate', {
        body: {
          definition: {
            triggerNodeIds: ['root'],
            nodes: {
              root: { type: 'manual', children: ['a'] },
              a: { type: 'log', payload: { message: 1 }, children: ['b'] },
              b: { type: 'log', payload: { message: 2 }, children: ['a'] },
            },
          },
        },
      })
      expect(cycle.body.data.valid).toBe(false)
      expect(cycle.body.data.errors.map((e: { message: string }) => e.message).join()).toContain('cycle')
      const single = await t.call('POST', '/v1/workflows/validate', {
        body: { definition: { triggerNodeIds: ['start'], nodes: { start: { type: 'manual' } } } },
      })
      expect(single.body.data.errors).toContainEqual({
        path: '/triggerNodeIds/0',
        message: 'a single-trigger workflow lists the literal "root"',
      })
      const multi = await t.call('POST', '/v1/workflows/validate', {
        body: {
          definition: { triggerNodeIds: ['root', 'b'], nodes: { root: { type: 'manual' }, b: { type: 'manual' } } },
        },
      })
      expect(multi.body.data.errors[0].message).toContain('must not use "root"')
      const actionAsTrigger = await t.call('POST', '/v1/workflows/validate', {
        body: { definition: { triggerNodeIds: ['root'], nodes: { root: { type: 'log' } } } },
      })
      expect(actionAsTrigger.body.data.errors[0].message).toContain('is an action, not a trigger type')
      const multiOk = await t.call('POST', '/v1/workflows/validate', {
        body: {
          definition: {
            triggerNodeIds: ['hook', 'api'],
            nodes: {
              hook: { type: 'manual', children: ['x'] },
              api: { type: 'manual', children: ['x'] },
              x: { type: 'log', payload: { message: '{{root.result.body}}' } },
            },
          },
        },
      })
      expect(multiOk.body.data).toEqual({ valid: true, type: 'manual', errors: [], warnings: [] })
    })

    it('checks branches, loops and loop-only expressions', async () => {
      const r = await t.call('POST', '/v1/workflows/validate', {
        body: {
          definition: {
            triggerNodeIds: ['root'],
            nodes: {
              root: { type: 'manual', children: ['check', 'loop'] },
              check: {
                type: 'if',
                payload: { condition: { $and: [{ '{{root.result.body.n}}': { $gt: 1 } }] } },
                children: ['yes', 'nobranch'],
              },
              yes: { type: 'log', branch: 'then', payload: { message: 'y' } },
              nobranch: { type: 'log', payload: { message: '{{$item}}' } },
              loop: { type: 'for-each', payload: { array: '{{root.result.body.items}}' }, loopBody: ['each'] },
              each: { type: 'log', payload: { message: '{{$item.name}} {{$for.loop.index}} {{loop.result}}' } },
            },
          },
        },
      })
      const messages = r.body.data.errors.map((e: { path: string; message: string }) => `${e.path}: ${e.message}`)
      expect(messages).toContainEqual(expect.stringContaining('/nodes/nobranch/branch: is required'))
      expect(messages).toContainEqual(expect.stringContaining('$item is only available inside a for-each loop body'))
      expect(messages).toContainEqual(
        expect.stringContaining('the result of "loop" is not available inside its own loop body'),
      )
      expect(messages).toHaveLength(3)
    })

    it('updates a draft in place, and treats identical content as no change', async () => {
      const w = await createWorkflow(t, { name: 'in place', definition: simple })
      const updated = (await t.call('PUT', `/v1/workflows/${w.id}`, { body: { description: 'now with words' } })).body
        .data
      expect(updated).toMatchObject({ version: 1, status: 'draft', description: 'now with words', name: 'in place' })
      const same = (await t.call('PUT', `/v1/workflows/${w.id}`, { body: { description: 'now with words' } })).body.data
      expect(same.updatedAt).toBe(updated.updatedAt)
      const versions = (await t.call('GET', `/v1/workflows/${w.id}/versions`)).body.data
      expect(versions.items).toHaveLength(1)
    })

    it('publishes, then keeps a draft and a live row with the flags of the specification', async () => {
      const w = await createWorkflow(t, { name: 'lifecycle', definition: simple })
      const live = await publish(t, w.id)
      expect(live).toMatchObject({
        version: 1,
        status: 'active',
        hasDraft: false,
        hasLiveVersion: true,
        liveVersionPaused: false,
      })
      expect((await t.call('POST', `/v1/workflows/${w.id}/publish`)).status).toBe(409)

      const other = await t.newOrganization(`wf-other-${kind}`)
      void other
      const editorKey = (await t.call('POST', '/v1/api-keys', { body: { name: 'editor' } })).body.data
      const draft = (await t.call('PUT', `/v1/workflows/${w.id}`, { body: { name: 'lifecycle v2' } })).body.data
      expect(draft).toMatchObject({
        version: 2,
        status: 'draft',
        hasDraft: true,
        hasLiveVersion: true,
        liveVersionPaused: false,
        name: 'lifecycle v2',
      })
      const firstAuthor = draft.versionCreatedBy
      const edited = (
        await t.call('PUT', `/v1/workflows/${w.id}`, { key: editorKey.key, body: { description: 'by another key' } })
      ).body.data
      expect(edited.version).toBe(2)
      expect(edited.versionCreatedBy).toBe(firstAuthor)
      expect(edited.updatedBy).toBe(editorKey.id)

      const liveRow = (await t.call('GET', `/v1/workflows/${w.id}/live`)).body.data
      expect(liveRow).toMatchObject({ version: 1, status: 'active', name: 'lifecycle', hasDraft: true })
      const draftRow = (await t.call('GET', `/v1/workflows/${w.id}/draft`)).body.data
      expect(draftRow.version).toBe(2)

      const paused = (await t.call('POST', `/v1/workflows/${w.id}/pause`)).body.data
      expect(paused).toMatchObject({ status: 'draft', liveVersionPaused: true, hasLiveVersion: true })
      expect((await t.call('GET', `/v1/workflows/${w.id}/live`)).body.data.status).toBe('paused')
      const resumed = (await t.call('POST', `/v1/workflows/${w.id}/resume`)).body.data
      expect(resumed.liveVersionPaused).toBe(false)

      const v2 = await publish(t, w.id)
      expect(v2).toMatchObject({ version: 2, status: 'active', hasDraft: false, name: 'lifecycle v2' })
      const v1 = (await t.call('GET', `/v1/workflows/${w.id}/versions/1`)).body.data
      expect(v1).toMatchObject({ version: 1, status: 'archived', name: 'lifecycle' })
      const list = (await t.call('GET', `/v1/workflows/${w.id}/versions`)).body.data
      expect(list.items.map((v: { version: number }) => v.version)).toEqual([2, 1])
      expect((await t.call('GET', `/v1/workflows/${w.id}/versions/9`)).status).toBe(404)
      const bad = await t.call('GET', `/v1/workflows/${w.id}/versions/two`)
      expect(bad.status).toBe(400)
      expect(bad.body.details[0].path).toBe('/versionNumber')
    })

    it('rolls back by copying an old version into a new draft, and discards drafts', async () => {
      const w = await createWorkflow(t, { name: 'first', definition: simple })
      await publish(t, w.id)
      await t.call('PUT', `/v1/workflows/${w.id}`, { body: { name: 'second' } })
      await publish(t, w.id)
      const rolled = (await t.call('POST', `/v1/workflows/${w.id}/rollback`, { body: { version: 1 } })).body.data
      expect(rolled).toMatchObject({ version: 3, status: 'draft', name: 'first', hasLiveVersion: true })
      const discarded = (await t.call('DELETE', `/v1/workflows/${w.id}/draft`)).body.data
      expect(discarded).toMatchObject({ version: 2, status: 'active', name: 'second', hasDraft: false })
      expect((await t.call('DELETE', `/v1/workflows/${w.id}/draft`)).status).toBe(404)
      expect((await t.call('POST', `/v1/workflows/${w.id}/rollback`, { body: { version: 42 } })).status).toBe(404)
      const onlyDraft = await createWorkflow(t, { definition: simple })
      expect((await t.call('DELETE', `/v1/workflows/${onlyDraft.id}/draft`)).status).toBe(409)
    })

    it('archives and unarchives; an archived workflow cannot change', async () => {
      const w = await createWorkflow(t, { name: 'archive me', definition: simple })
      const archived = (await t.call('DELETE', `/v1/workflows/${w.id}`)).body.data
      expect(archived.status).toBe('archived')
      expect((await t.call('PUT', `/v1/workflows/${w.id}`, { body: { name: 'x' } })).status).toBe(409)
      expect(
        (await t.call('GET', '/v1/workflows?status=archived&limit=100')).body.data.items.map(
          (i: { id: string }) => i.id,
        ),
      ).toContain(w.id)
      expect(
        (await t.call('GET', '/v1/workflows?limit=100')).body.data.items.map((i: { id: string }) => i.id),
      ).not.toContain(w.id)
      const back = (await t.call('POST', `/v1/workflows/${w.id}/unarchive`)).body.data
      expect(back.status).toBe('draft')
    })

    it('refills remaining runs, and pausing needs a live version', async () => {
      const w = await createWorkflow(t, { definition: simple, maxRuns: 3 })
      expect((await t.call('POST', `/v1/workflows/${w.id}/pause`)).status).toBe(409)
      const live = await publish(t, w.id)
      expect(live.remainRuns).toBe(3)
      const refilled = (await t.call('POST', `/v1/workflows/${w.id}/refill`, { body: { remainRuns: 7 } })).body.data
      expect(refilled.remainRuns).toBe(7)
      expect((await t.call('POST', `/v1/workflows/${w.id}/refill`, { body: { remainRuns: 0 } })).status).toBe(400)
    })

    it('transfers ownership only to a member', async () => {
      const w = await createWorkflow(t, { definition: simple })
      const notMember = await t.call('PUT', `/v1/workflows/${w.id}/owner`, { body: { ownerUserId: 'usr_nobody' } })
      expect(notMember.status).toBe(400)
      const member = await addMember(t, `ann-${kind}@example.com`, 'developer')
      const r = await t.call('PUT', `/v1/workflows/${w.id}/owner`, { body: { ownerUserId: member.userId } })
      expect(r.body.data).toEqual({ id: w.id, ownerUserId: member.userId })
      expect((await t.call('GET', `/v1/workflows/${w.id}`)).body.data.ownerUserId).toBe(member.userId)
      const reader = (await t.call('POST', '/v1/api-keys', { body: { name: 'reader', scope: 'read' } })).body.data
      expect(
        (await t.call('PUT', `/v1/workflows/${w.id}/owner`, { key: reader.key, body: { ownerUserId: member.userId } }))
          .status,
      ).toBe(403)
    })

    it('changes visibility on both rows and ui metadata without a new version', async () => {
      const w = await createWorkflow(t, { definition: simple })
      await publish(t, w.id)
      await t.call('PUT', `/v1/workflows/${w.id}`, { body: { name: 'has draft' } })
      const v = (await t.call('PUT', `/v1/workflows/${w.id}/visibility`, { body: { visibility: 'public_view' } })).body
        .data
      expect(v.visibility).toBe('public_view')
      expect((await t.call('GET', `/v1/workflows/${w.id}/live`)).body.data.visibility).toBe('public_view')
      expect(
        (await t.call('PUT', `/v1/workflows/${w.id}/visibility`, { body: { visibility: 'everyone' } })).status,
      ).toBe(400)
      const ui = (
        await t.call('PATCH', `/v1/workflows/${w.id}/ui-metadata`, {
          body: { nodePositions: { root: { x: 9, y: 9 } } },
        })
      ).body.data
      expect(ui.uiMetadata.nodePositions).toEqual({ root: { x: 9, y: 9 } })
      expect(ui.version).toBe(2)
      expect((await t.call('GET', `/v1/workflows/${w.id}/versions`)).body.data.items).toHaveLength(2)
    })

    it('keeps organizations apart and checks permissions', async () => {
      const w = await createWorkflow(t, { definition: simple })
      const other = await t.newOrganization(`wf-iso-${kind}`)
      for (const [method, path] of [
        ['GET', ''],
        ['PUT', ''],
        ['POST', '/publish'],
        ['GET', '/versions'],
        ['POST', '/run'],
      ] as const) {
        const r = await t.call(method, `/v1/workflows/${w.id}${path}`, {
          key: other.key,
          body: method === 'GET' ? undefined : {},
        })
        expect(r.status).toBe(404)
      }
      const sa = (
        await t.call('POST', '/v1/service-accounts', {
          body: { name: 'runner', permissions: ['workflow:execute', 'run:read'] },
        })
      ).body.data
      const runner = (await t.call('POST', '/v1/api-keys', { body: { name: 'runner', serviceAccountId: sa.id } })).body
        .data
      expect((await t.call('PUT', `/v1/workflows/${w.id}`, { key: runner.key, body: { name: 'nope' } })).status).toBe(
        403,
      )
      expect(
        (await t.call('POST', `/v1/workflows/${w.id}/run`, { key: runner.key, body: { payload: {} } })).status,
      ).toBe(200)
    })
  })
}
