/**
 * Answers that wait for the output: `Prefer: wait=<seconds>` on webhooks, API runs and public runs
 * adds `run: { id, status, output }` once the run ended, `output` from the workflow's
 * `responseNodeId` or else the last node that finished.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { outputOf } from '../../core/services/run-outputs.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear } from '../helpers/workflows.ts'

const twoSteps = linear(
  {
    greet: { type: 'log', payload: { message: 'hello {{root.result.body.name}}' } },
    bye: { type: 'log', payload: { message: 'bye {{root.result.body.name}}' } },
  },
  ['greet', 'bye'],
)

describe('the output of a run', () => {
  const run = {
    nodes: {
      root: { finishedAt: '2026-01-01T00:00:00.000Z', result: { body: {} } },
      greet: { finishedAt: '2026-01-01T00:00:01.000Z', result: { message: 'hello' } },
      bye: { finishedAt: '2026-01-01T00:00:02.000Z', result: { message: 'bye' } },
    },
  } as never
  it('is the result of the node the workflow names, else of the last node that finished', () => {
    expect(outputOf(run, 'greet')).toEqual({ message: 'hello' })
    expect(outputOf(run, '')).toEqual({ message: 'bye' })
    expect(outputOf(run, 'missing')).toBeNull()
  })
})

for (const kind of storeKinds()) {
  describe(`answers that wait for the output (${kind})`, () => {
    let t: TestSystem
    let live: { id: string; triggerSecret: string }
    beforeAll(async () => {
      t = await openTestSystem(kind)
      live = await createLive(t, { name: 'greeter', definition: twoSteps, visibility: 'public_execute' })
    })
    afterAll(() => t.close())

    const wait = { prefer: 'wait=30' }

    it("adds the run's status and output to a webhook's answer when asked to wait", async () => {
      const r = await t.call('POST', `/v1/webhooks/${live.triggerSecret}`, {
        key: null,
        body: { name: 'Ada' },
        headers: wait,
      })
      expect(r.status).toBe(200)
      expect(r.headers.get('preference-applied')).toBe('wait=30')
      expect(r.body.data).toMatchObject({ action: 'triggered', runIds: [expect.any(String)] })
      expect(r.body.data.run).toEqual({ id: r.body.data.runIds[0], status: 'success', output: { message: 'bye Ada' } })
    })

    it('answers at once, without the run, when not asked to wait', async () => {
      const r = await t.call('POST', `/v1/webhooks/${live.triggerSecret}`, { key: null, body: { name: 'Bo' } })
      expect(r.body.data.run).toBeUndefined()
      expect(r.headers.get('preference-applied')).toBeNull()
    })

    it('waits on API runs and public runs too, with the output of responseNodeId', async () => {
      const named = await createLive(t, { name: 'named', definition: twoSteps, responseNodeId: 'greet' })
      const api = await t.call('POST', `/v1/workflows/${named.id}/run`, {
        body: { payload: { name: 'Cy' } },
        headers: wait,
      })
      expect(api.body.data.run).toEqual({ id: api.body.data.runId, status: 'success', output: { message: 'hello Cy' } })
      const pub = await t.call('POST', `/v1/public/workflows/${live.id}/run`, {
        key: null,
        body: { payload: { name: 'Di' } },
        headers: wait,
      })
      expect(pub.status).toBe(200)
      expect(pub.body.data.run).toMatchObject({ id: pub.body.data.runId, status: 'success' })
    })
  })
}
