/**
 * Issue findings 2 and 3: user-chosen keys never reach a prototype, a run that cannot execute
 * fails once and clearly, and size limits come before any check that grows with the definition.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'

for (const kind of storeKinds()) {
  describe(`hostile definitions (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t?.close())

    it('refuses prototype names as node ids, node references and variable names', async () => {
      const raw =
        '{"definition":{"triggerNodeIds":["root"],"nodes":{"root":{"type":"manual","children":["__proto__"]},"__proto__":{"type":"log","payload":{"message":"x"}}}}}'
      const proto = await t.call('POST', '/v1/workflows', {
        rawBody: raw,
        headers: { 'content-type': 'application/json' },
      })
      expect(proto.status).toBe(400)
      expect(JSON.stringify(proto.body.details)).toContain('__proto__')
      const dangling = await t.call('POST', '/v1/workflows', {
        body: {
          definition: { triggerNodeIds: ['root'], nodes: { root: { type: 'manual', children: ['constructor'] } } },
        },
      })
      expect(dangling.status).toBe(400)
      expect(dangling.body.details).toContainEqual(
        expect.objectContaining({ path: '/definition/nodes/root/children/0' }),
      )
      const spaced = await t.call('POST', '/v1/workflows/validate', {
        body: {
          definition: {
            triggerNodeIds: ['root'],
            nodes: { root: { type: 'manual', children: ['a b'] }, 'a b': { type: 'log', payload: { message: 'x' } } },
          },
        },
      })
      expect([400, 200]).toContain(spaced.status)
      expect(JSON.stringify(spaced.body)).toContain('a node id is 1 to 64 letters')
      const variable = await t.call('POST', '/v1/workflows', {
        body: {
          definition: linear({ say: { type: 'log', payload: { message: 'x' } } }, ['say']),
          variableDefs: [{ name: '__proto__', type: 'number' }],
        },
      })
      expect(variable.status).toBe(400)
    })

    it('refuses a definition past the node limit by its size alone, before checks that grow with its size', async () => {
      const nodes: Record<string, unknown> = { root: { type: 'manual', children: ['n0'] } }
      // An unknown node type and a dangling child too: checks run past the size would name them.
      for (let i = 0; i < 10_000; i++)
        nodes[`n${i}`] = {
          type: i === 5000 ? 'no-such-type' : 'log',
          payload: { message: 'x' },
          children: i < 9_999 ? [`n${i + 1}`] : ['ghost'],
        }
      const r = await t.call('POST', '/v1/workflows/validate', {
        body: { definition: { triggerNodeIds: ['root'], nodes } },
      })
      expect(r.body.data).toMatchObject({
        valid: false,
        errors: [{ path: '/nodes', message: 'must contain at most 1000 nodes' }],
      })
      expect(r.body.data.errors).toHaveLength(1)
      const created = await t.call('POST', '/v1/workflows', {
        body: { definition: { triggerNodeIds: ['root'], nodes } },
      })
      expect(created.status).toBe(400)
      expect(created.body.details).toEqual([{ path: '/definition/nodes', message: 'must contain at most 1000 nodes' }])
    })

    it('fails a stored run whose definition cannot execute, once, with a clear error', async () => {
      const w = await createLive(t, {
        definition: linear({ say: { type: 'log', payload: { message: 'hi' } } }, ['say']),
      })
      const ok = (await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: {} } })).body.data.runId
      await waitForRun(t, ok)
      // A definition stored before ids were checked: its trigger names a child that is not a node;
      // its run was admitted an hour ago and never started (the sweep takes unowned runs once the
      // work queue had its chance).
      const broken = JSON.stringify({
        definition: { triggerNodeIds: ['root'], nodes: { root: { type: 'manual', children: ['ghost'] } } },
        variableDefs: [],
      })
      await t.system.store.write(async (tx) => {
        await tx.run('INSERT INTO definitions (hash, body, created_at) VALUES ($1, $2, $3)', [
          'broken-definition',
          broken,
          Date.now(),
        ])
        await tx.run(
          `INSERT INTO runs (id, organization_id, workflow_id, workflow_version, status, trigger_type, trigger_node_id, triggered_by, automatic, live, event_id,
             idempotency_key, retry_of, definition_hash, trigger_event, prop_values, vars, seed, snapshot, last_seq, error, started_at, finished_at, updated_at, owner)
           SELECT 'run_unstartable', organization_id, workflow_id, workflow_version, 'running', trigger_type, trigger_node_id, triggered_by, automatic, live, 'evt_unstartable',
             NULL, NULL, 'broken-definition', trigger_event, prop_values, vars, NULL, NULL, 1, NULL, started_at - 3600000, NULL, updated_at - 3600000, NULL FROM runs WHERE id = $1`,
          [ok],
        )
      })
      await t.system.engine.executor.sweep()
      const run = await waitForRun(t, 'run_unstartable')
      expect(run.status).toBe('failure')
      expect(run.error).toMatchObject({ code: 'unstartable', message: expect.stringContaining('ghost') })
      // It stays failed: the next sweep does not pick it up again.
      expect(await t.system.engine.executor.sweep()).toBe(0)
      expect((await t.call('POST', '/v1/runs/run_unstartable/cancel')).status).toBe(409)
    })
  })
}
