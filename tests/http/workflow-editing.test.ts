import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { applyProposal } from '../../core/services/builder-chat-proposals.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createWorkflow, linear, publish, waitForRun } from '../helpers/workflows.ts'

const simple = linear({ say: { type: 'log', payload: { message: 'hello {{root.result.body.name}}' } } }, ['say'])

for (const kind of storeKinds()) {
  describe(`the workflow editor's API (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t.close())

    const read = async (id: string) => {
      const r = await t.call('GET', `/v1/workflows/${id}`)
      expect(r.status).toBe(200)
      return { etag: r.headers.get('etag')!, workflow: r.body.data }
    }

    describe('two people, one draft', () => {
      it('answers an ETag naming the draft version, and a new one after each save', async () => {
        const w = await createWorkflow(t, { name: 'Tagged', definition: simple })
        const first = await read(w.id)
        expect(first.etag).toMatch(/^"1\.[0-9a-f]+"$/)
        const saved = await t.call('PUT', `/v1/workflows/${w.id}`, {
          body: { description: 'changed' },
          headers: { 'if-match': first.etag },
        })
        expect(saved.status).toBe(200)
        expect(saved.headers.get('etag')).not.toBe(first.etag)
        expect((await read(w.id)).etag).toBe(saved.headers.get('etag')!)
      })

      it('refuses a save over a change made since it was read, naming the current version', async () => {
        const w = await createWorkflow(t, { name: 'Contested', definition: simple })
        const { etag } = await read(w.id)
        const other = await t.call('PUT', `/v1/workflows/${w.id}`, {
          body: { description: 'first writer' },
          headers: { 'if-match': etag },
        })
        expect(other.status).toBe(200)
        const late = await t.call('PUT', `/v1/workflows/${w.id}`, {
          body: { description: 'second writer' },
          headers: { 'if-match': etag },
        })
        expect(late.status).toBe(412)
        expect(late.body).toMatchObject({ code: 412, requestId: expect.any(String) })
        expect(late.body.details[0]).toMatchObject({ currentVersion: 1, etag: other.headers.get('etag') })
        expect((await read(w.id)).workflow.description).toBe('first writer')
      })

      it('keeps a save without If-Match unconditional', async () => {
        const w = await createWorkflow(t, { name: 'Unconditional', definition: simple })
        await t.call('PUT', `/v1/workflows/${w.id}`, { body: { description: 'a' } })
        const r = await t.call('PUT', `/v1/workflows/${w.id}`, { body: { description: 'b' } })
        expect(r.status).toBe(200)
        expect(r.body.data.description).toBe('b')
      })

      it('checks UI metadata edits the same way', async () => {
        const w = await createWorkflow(t, { name: 'Positions', definition: simple })
        const { etag } = await read(w.id)
        await t.call('PUT', `/v1/workflows/${w.id}`, { body: { description: 'moved on' } })
        const r = await t.call('PATCH', `/v1/workflows/${w.id}/ui-metadata`, {
          body: { nodePositions: { say: { x: 1, y: 2 } } },
          headers: { 'if-match': etag },
        })
        expect(r.status).toBe(412)
      })

      it("refuses the builder chat's proposal over a draft changed since the model read it", async () => {
        const w = await createWorkflow(t, { name: 'Chatted', definition: simple })
        const shown = (await read(w.id)).etag
        await t.call('PUT', `/v1/workflows/${w.id}`, { body: { description: 'edited meanwhile' } })
        const caller = await t.system.auth.authenticate(`Bearer ${t.key}`, { ip: null, userAgent: null })
        const deps = { workflows: t.system.workflows }
        const proposal = { name: 'Proposed', definition: simple }
        await expect(applyProposal(deps, caller, w.id, proposal, shown)).rejects.toMatchObject({ status: 412 })
        expect((await read(w.id)).workflow.aiName).toBe('')
        const applied = await applyProposal(deps, caller, w.id, proposal, (await read(w.id)).etag)
        expect(applied).toMatchObject({ workflowId: w.id, etag: (await read(w.id)).etag })
      })

      it('lists 412 on the save in the OpenAPI document', async () => {
        const r = await t.call('GET', '/v1/openapi.json')
        expect(Object.keys(r.body.paths['/v1/workflows/{id}'].put.responses)).toContain('412')
      })
    })

    describe('pinned samples', () => {
      it('keeps a pinned sample with the draft and flags it once it no longer fits its trigger', async () => {
        const definition = { ...simple, inputSchema: [{ key: 'name', type: 'string', required: true }] }
        const w = await createWorkflow(t, { name: 'Pinned', definition, pinnedData: { root: { name: 'Ada' } } })
        expect(w.pinnedData).toEqual({ root: { name: 'Ada' } })
        expect(w.pinnedDataProblems).toBeUndefined()
        const changed = await t.call('PUT', `/v1/workflows/${w.id}`, {
          body: { definition: { ...simple, inputSchema: [{ key: 'name', type: 'number', required: true }] } },
        })
        expect(changed.body.data.pinnedDataProblems).toEqual([
          { path: '/pinnedData/root/name', message: 'must be of type number' },
        ])
        const published = await publish(t, w.id)
        expect(published.pinnedData).toEqual({ root: { name: 'Ada' } })
      })

      it('flags a sample pinned on a node that is not a trigger', async () => {
        const w = await createWorkflow(t, { name: 'Stray pin', definition: simple, pinnedData: { gone: {} } })
        expect(w.pinnedDataProblems).toEqual([
          { path: '/pinnedData/gone', message: 'gone is no longer a trigger of this workflow' },
        ])
      })

      it('describes pinnedData in the OpenAPI document', async () => {
        const r = await t.call('GET', '/v1/openapi.json')
        expect(JSON.stringify(r.body.paths['/v1/workflows/{id}'].put)).toContain('pinnedData')
      })
    })

    describe('expressions checked before running', () => {
      it('warns about a result field the upstream node does not declare, without refusing it', async () => {
        const definition = linear(
          {
            say: { type: 'log', payload: { message: 'hi' } },
            echo: { type: 'log', payload: { message: '{{say.result.mesage}} {{say.result.message.deep}}' } },
          },
          ['say', 'echo'],
        )
        const r = await t.call('POST', '/v1/workflows/validate', { body: { definition } })
        expect(r.body.data).toMatchObject({ valid: true, errors: [] })
        expect(r.body.data.warnings).toEqual([
          {
            path: '/nodes/echo/payload/message',
            message: '"say" (log) has no result field "mesage": it would resolve to nothing',
          },
        ])
      })

      it('answers no warnings for references the schema declares', async () => {
        const r = await t.call('POST', '/v1/workflows/validate', { body: { definition: simple } })
        expect(r.body.data.warnings).toEqual([])
      })
    })

    describe('test runs', () => {
      it('runs the draft with the pinned sample, marked as a test run and kept out of production lists', async () => {
        const w = await createWorkflow(t, {
          name: 'Test run',
          definition: simple,
          pinnedData: { root: { name: 'Pin' } },
        })
        const started = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { test: true } })
        expect(started.status).toBe(200)
        const run = await waitForRun(t, started.body.data.runId)
        expect(run).toMatchObject({ status: 'success', test: true })
        expect(run.nodes.say.result.message).toBe('hello Pin')
        const production = await t.call('GET', `/v1/runs?workflowId=${w.id}`)
        expect(production.body.data.items).toEqual([])
        const tests = await t.call('GET', `/v1/runs?workflowId=${w.id}&test=true`)
        expect(tests.body.data.items.map((r: { id: string }) => r.id)).toEqual([run.id])
        const ofWorkflow = await t.call('GET', `/v1/workflows/${w.id}/runs?test=true`)
        expect(ofWorkflow.body.data.items[0]).toMatchObject({ id: run.id, test: true })
      })

      it('takes the payload it is given over the pinned sample', async () => {
        const w = await createWorkflow(t, { name: 'Given', definition: simple, pinnedData: { root: { name: 'Pin' } } })
        const started = await t.call('POST', `/v1/workflows/${w.id}/run`, {
          body: { test: true, payload: { name: 'Given' } },
        })
        const run = await waitForRun(t, started.body.data.runId)
        expect(run.nodes.say.result.message).toBe('hello Given')
      })

      it('never uses the pinned sample for a run that is not a test', async () => {
        const w = await createWorkflow(t, { name: 'Live', definition: simple, pinnedData: { root: { name: 'Pin' } } })
        const started = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: {} })
        const run = await waitForRun(t, started.body.data.runId)
        expect(run.test).toBeUndefined()
        expect(run.nodes.say.result.message).toBe('hello ')
      })
    })

    describe('one node run again', () => {
      it("runs the draft's node with the earlier run's inputs and leaves that run as it was", async () => {
        const w = await createWorkflow(t, { name: 'Node test', definition: simple })
        const started = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: { name: 'Ada' } } })
        const before = await waitForRun(t, started.body.data.runId)
        const edited = linear({ say: { type: 'log', payload: { message: 'bye {{root.result.body.name}}!' } } }, ['say'])
        await t.call('PUT', `/v1/workflows/${w.id}`, { body: { definition: edited } })
        const r = await t.call('POST', `/v1/workflows/${w.id}/nodes/say/test`, { body: { runId: before.id } })
        expect(r.status).toBe(200)
        expect(r.body.data).toMatchObject({ status: 'success', result: { message: 'bye Ada!' } })
        expect(r.body.data.durationMs).toBeGreaterThanOrEqual(0)
        const after = await t.call('GET', `/v1/runs/${before.id}`)
        expect(after.body.data).toEqual(before)
      })

      it('answers a failing node as a failure, not an error', async () => {
        const w = await createWorkflow(t, { name: 'Node fails', definition: simple })
        const started = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: {} } })
        const run = await waitForRun(t, started.body.data.runId)
        const failing = linear(
          { say: { type: 'code-transform', payload: { code: 'function transform() { throw new Error("no") }' } } },
          ['say'],
        )
        expect((await t.call('PUT', `/v1/workflows/${w.id}`, { body: { definition: failing } })).status).toBe(200)
        const r = await t.call('POST', `/v1/workflows/${w.id}/nodes/say/test`, { body: { runId: run.id } })
        expect(r.body.data.status).toBe('failure')
      })

      it("runs a node of a for-each body in the loop's first iteration, and refuses a run whose loop had no items", async () => {
        const definition = {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['orders'] },
            orders: { type: 'for-each', payload: { array: '{{root.result.body.orders}}' }, loopBody: ['label'] },
            label: { type: 'log', payload: { message: '#{{$index}} {{$item.id}}' }, children: ['lines'] },
            lines: { type: 'for-each', payload: { array: '{{$item.lines}}' }, loopBody: ['line'] },
            line: { type: 'log', payload: { message: '{{$parent_item.id}}/{{$item}} after {{label.result.message}}' } },
          },
        }
        const w = await createWorkflow(t, { name: 'Loop node test', definition })
        const start = async (orders: unknown[]) => {
          const started = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: { orders } } })
          return waitForRun(t, started.body.data.runId)
        }
        const run = await start([
          { id: 'a', lines: ['x', 'y'] },
          { id: 'b', lines: ['z'] },
        ])
        const test = (nodeId: string, runId: string) =>
          t.call('POST', `/v1/workflows/${w.id}/nodes/${nodeId}/test`, { body: { runId } })
        const label = await test('label', run.id)
        expect(label.status).toBe(200)
        expect(label.body.data).toMatchObject({ status: 'success', result: { message: '#0 a' } })
        // Nested: the first order's first line, after the label that iteration wrote.
        const line = await test('line', run.id)
        expect(line.body.data).toMatchObject({ status: 'success', result: { message: 'a/x after #0 a' } })
        const empty = await start([])
        const refused = await test('label', empty.id)
        expect(refused.status).toBe(409)
        expect(refused.body.message).toContain('for-each orders')
      })

      it('refuses a trigger node, an unknown node and a run of another workflow', async () => {
        const w = await createWorkflow(t, { name: 'Node refusals', definition: simple })
        const other = await createWorkflow(t, { name: 'Other', definition: simple })
        const started = await t.call('POST', `/v1/workflows/${other.id}/run`, { body: { payload: {} } })
        const run = await waitForRun(t, started.body.data.runId)
        const test = (nodeId: string) =>
          t.call('POST', `/v1/workflows/${w.id}/nodes/${nodeId}/test`, { body: { runId: run.id } })
        expect((await test('root')).status).toBe(400)
        expect((await test('ghost')).status).toBe(404)
        expect((await test('say')).status).toBe(404)
      })
    })

    describe('names instead of ids', () => {
      it("names a version's author: the key that wrote it", async () => {
        const w = await createWorkflow(t, { name: 'Authored', definition: simple })
        const { workflow } = await read(w.id)
        expect(workflow.versionCreatedBy).toMatch(/^key_/)
        expect(workflow.versionCreatedByName).toEqual(expect.any(String))
        const versions = await t.call('GET', `/v1/workflows/${w.id}/versions`)
        expect(versions.body.data.items[0].versionCreatedByName).toBe(workflow.versionCreatedByName)
      })

      it("shows the workflow's name on its runs, listed and read", async () => {
        const w = await createWorkflow(t, { name: 'Named runs', definition: simple })
        const started = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: {} } })
        const one = await t.call('GET', `/v1/runs/${started.body.data.runId}`)
        expect(one.body.data.workflowName).toBe('Named runs')
        const listed = await t.call('GET', `/v1/workflows/${w.id}/runs`)
        expect(listed.body.data.items[0].workflowName).toBe('Named runs')
      })
    })
  })
}
