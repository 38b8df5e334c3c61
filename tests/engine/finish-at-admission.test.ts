/**
 * Runs of pure nodes end at admission: the transaction that admits such a run also executes it
 * and writes its journal, so it is over when the trigger is answered. Any other run is stored
 * first and executed after the commit, and nothing of it runs before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { defineAction, definePlugin, Type } from '../../core/plugin/sdk.ts'
import { runEvents } from '../helpers/journal.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'

/** Every call of the probe actions: the run, the node instance and the run's status the store showed then. */
const calls: Array<{ action: string; runId: string; key: string; stored?: string }> = []
let system: TestSystem

const probe = definePlugin({
  id: 'probe',
  actions: [
    defineAction({
      type: 'probe-double',
      name: 'Double',
      description: 'Doubles a number; fails on a negative one.',
      pure: true,
      payload: Type.Object({ n: Type.Number() }),
      result: Type.Object({ n: Type.Number() }),
      run(ctx) {
        calls.push({ action: 'double', runId: ctx.run.id, key: ctx.node.key })
        if (ctx.payload.n < 0) throw new Error(`cannot double ${ctx.payload.n}`)
        return { n: ctx.payload.n * 2 }
      },
    }),
    defineAction({
      type: 'probe-look',
      name: 'Look',
      description: 'Reads its own run from the API (not pure).',
      payload: Type.Object({}),
      result: Type.Object({ status: Type.String() }),
      async run(ctx) {
        const seen = await system.call('GET', `/v1/runs/${ctx.run.id}`)
        calls.push({ action: 'look', runId: ctx.run.id, key: ctx.node.key, stored: seen.body.data?.status })
        return { status: String(seen.body.data?.status) }
      },
    }),
  ],
})

const callsOf = (runId: string, action: string) => calls.filter((c) => c.runId === runId && c.action === action)

for (const kind of storeKinds()) {
  describe(`runs that end at admission (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = system = await openTestSystem(kind, { AUTOMATON_CONSECUTIVE_FAILURES_PAUSE: '2' }, { plugins: [probe] })
    })
    afterAll(() => t.close())

    const hook = (secret: string, body: unknown) => t.call('POST', `/v1/webhooks/${secret}`, { key: null, body })
    /** The run's journal as the store reads it back (what a stream replays). */
    const journalOf = (runId: string) => runEvents(t.system.store, runId)

    it('is over when the webhook answers: its row, its nodes and its whole journal are stored, each node executed once', async () => {
      const w = await createLive(t, {
        definition: linear(
          {
            twice: { type: 'probe-double', payload: { n: '{{$trigger.body.n}}' } },
            keep: { type: 'set-variable', payload: { name: 'last', value: '{{twice.result.n}}' } },
            say: { type: 'log', payload: { message: 'doubled to {{$vars.last}}' } },
          },
          ['twice', 'keep', 'say'],
        ),
      })
      const r = await hook(w.triggerSecret, { n: 21 })
      expect(r.status).toBe(200)
      const runId = r.body.data.runIds[0]
      // No waiting: the first read after the answer finds the run ended.
      const run = (await t.call('GET', `/v1/runs/${runId}`)).body.data
      expect(run).toMatchObject({ status: 'success', finishedAt: expect.any(String) })
      expect(run.nodes.twice).toMatchObject({ status: 'success', result: { n: 42 } })
      expect(run.nodes.say.result.message).toBe('doubled to 42')
      expect(callsOf(runId, 'double')).toHaveLength(1)

      const events = await journalOf(runId)
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
      expect(events.map((e) => `${e.type} ${e.nodeId ?? ''}`.trim())).toEqual([
        'run.started',
        'node.succeeded root',
        'node.started twice',
        'node.succeeded twice',
        'node.started keep',
        'node.succeeded keep',
        'node.started say',
        'node.succeeded say',
        'run.succeeded',
      ])
      expect(events[0].data).toMatchObject({
        runId,
        workflowId: w.id,
        workflowVersion: 1,
        triggeredBy: 'webhook',
        eventId: r.body.data.eventId,
      })
      const [row] = await t.system.store.all<{
        status: string
        owner: string | null
        last_seq: number
        snapshot: string | null
      }>('SELECT status, owner, last_seq, snapshot FROM runs WHERE id = $1', [runId])
      expect({ status: row.status, owner: row.owner, lastSeq: Number(row.last_seq) }).toEqual({
        status: 'success',
        owner: null,
        lastSeq: events.length,
      })
      expect(row.snapshot).not.toBeNull()
    })

    it('applies the run controls: persisted variables for the next run, consecutive failures pausing the workflow', async () => {
      const w = await createLive(t, {
        definition: linear(
          {
            twice: { type: 'probe-double', payload: { n: '{{$trigger.body.n}}' } },
            keep: { type: 'set-variable', payload: { name: 'total', value: '{{twice.result.n}}' } },
          },
          ['twice', 'keep'],
        ),
        variableDefs: [{ name: 'total', type: 'number', lifetime: 'persist', default: 0 }],
      })
      const first = (await hook(w.triggerSecret, { n: 4 })).body.data.runIds[0]
      expect((await t.call('GET', `/v1/runs/${first}`)).body.data.status).toBe('success')
      const [stored] = await t.system.store.all<{ value: string }>(
        'SELECT value FROM workflow_variables WHERE workflow_id = $1 AND name = $2',
        [w.id, 'total'],
      )
      expect(JSON.parse(stored.value)).toBe(8)

      // Two failed runs in a row pause the live version (AUTOMATON_CONSECUTIVE_FAILURES_PAUSE=2).
      for (const n of [-1, -2]) {
        const failed = (await hook(w.triggerSecret, { n })).body.data.runIds[0]
        const run = (await t.call('GET', `/v1/runs/${failed}`)).body.data
        expect(run).toMatchObject({ status: 'failure' })
        expect(run.nodes.twice.error).toContain(`cannot double ${n}`)
      }
      expect((await t.call('GET', `/v1/workflows/${w.id}`)).body.data).toMatchObject({
        status: 'paused',
        pausedReason: 'consecutive_failures',
      })
      expect((await hook(w.triggerSecret, { n: 1 })).body.data).toMatchObject({
        action: 'skipped',
        reason: 'consecutive_failures',
      })
    })

    it('stores a run with a node that is not pure before anything of it executes, and executes its nodes once', async () => {
      const w = await createLive(t, {
        definition: linear(
          {
            twice: { type: 'probe-double', payload: { n: 1 } },
            look: { type: 'probe-look', payload: {} },
          },
          ['twice', 'look'],
        ),
      })
      const runId = (await hook(w.triggerSecret, {})).body.data.runIds[0]
      const run = await waitForRun(t, runId)
      expect(run.status).toBe('success')
      // When the impure node ran, its run was already stored (and still running).
      expect(callsOf(runId, 'look')).toEqual([{ action: 'look', runId, key: 'look', stored: 'running' }])
      expect(callsOf(runId, 'double')).toHaveLength(1)
      const types = (await journalOf(runId)).map((e) => e.type)
      expect(types.filter((type) => type === 'run.started')).toHaveLength(1)
      expect(types.at(-1)).toBe('run.succeeded')
    })

    it('leaves a run longer than one step to the executor, whose journal has each node once', async () => {
      // 100 items × 3 body nodes: more executions than one transition takes (MAX_CHAIN).
      const w = await createLive(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['loop'] },
            loop: { type: 'for-each', payload: { array: '{{$trigger.body.items}}' }, loopBody: ['a'] },
            a: { type: 'probe-double', payload: { n: '{{$item}}' }, children: ['b'] },
            b: { type: 'probe-double', payload: { n: '{{a.result.n}}' }, children: ['c'] },
            c: { type: 'probe-double', payload: { n: '{{b.result.n}}' } },
          },
        },
      })
      const items = Array.from({ length: 100 }, (_, i) => i)
      const runId = (await hook(w.triggerSecret, { items })).body.data.runIds[0]
      const run = await waitForRun(t, runId)
      expect(run.status).toBe('success')
      expect(run.nodes.loop.result.results.map((r: { c: { n: number } }) => r.c.n)).toEqual(items.map((i) => i * 8))
      const events = await journalOf(runId)
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
      const succeeded = events.filter((e) => e.type === 'node.succeeded').map((e) => e.data.key)
      expect(new Set(succeeded).size).toBe(succeeded.length)
      expect(succeeded).toHaveLength(1 + 300 + 1)
      // Every instance executed by the executor; the admission's attempt, given up, wrote nothing.
      expect(new Set(callsOf(runId, 'double').map((c) => c.key)).size).toBe(300)
    })

    it('ends a retry of such a run at once too, reusing the nodes that succeeded', async () => {
      const w = await createLive(t, {
        definition: linear(
          {
            twice: { type: 'probe-double', payload: { n: '{{$trigger.body.n}}' } },
            bad: { type: 'probe-double', payload: { n: -1 } },
          },
          ['twice', 'bad'],
        ),
      })
      const original = (await hook(w.triggerSecret, { n: 3 })).body.data.runIds[0]
      expect((await t.call('GET', `/v1/runs/${original}`)).body.data.status).toBe('failure')
      const retried = await t.call('POST', `/v1/runs/${original}/retry`)
      expect(retried.status).toBe(200)
      const retryId = retried.body.data.runId
      const run = (await t.call('GET', `/v1/runs/${retryId}`)).body.data
      expect(run).toMatchObject({ status: 'failure', retryOf: original })
      expect(run.nodes.twice).toMatchObject({ status: 'success', result: { n: 6 } })
      expect(run.nodes.bad.error).toContain('cannot double -1')
      // The node that succeeded was reused, the one that failed executed again.
      expect(callsOf(retryId, 'double').map((c) => c.key)).toEqual(['bad'])
    })
  })
}
