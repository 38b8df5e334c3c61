/**
 * Which workflows have flow control series in GET /metrics: only those with a limiting rule
 * (concurrency, throttle, rateLimit, debounce); a priority alone limits nothing and adds none, so a
 * tenant cannot grow the metrics by setting priorities.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear } from '../helpers/workflows.ts'

const waiting = linear({ pause: { type: 'delay', payload: { delayMs: 600_000 } } }, ['pause'])

for (const kind of storeKinds()) {
  describe(`flow control: which workflows have series (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t.close())

    const hook = (secret: string) => t.call('POST', `/v1/webhooks/${secret}`, { key: null, body: {} })
    const seriesOf = async (workflowId: string) => {
      const text = (await t.call('GET', '/metrics', { key: null })).body as string
      return text
        .split('\n')
        .filter((line) => line.startsWith('automaton_flow_control_runs_total{') && line.includes(workflowId))
    }

    it('counts a workflow with a limiting rule, and not one with a priority alone', async () => {
      const ranked = await createLive(t, { definition: waiting, flowControl: { priority: 50 } })
      const limited = await createLive(t, {
        definition: waiting,
        flowControl: { priority: 50, concurrency: { limit: 5 } },
      })
      for (const workflow of [ranked, limited])
        expect((await hook(workflow.triggerSecret)).body.data.action).toBe('triggered')
      expect(await seriesOf(ranked.id)).toEqual([])
      expect(await seriesOf(limited.id)).toEqual([
        `automaton_flow_control_runs_total{workflow_id="${limited.id}",outcome="admitted"} 1`,
      ])
    })
  })
}
