/**
 * Flow control's metrics: GET /metrics counts what flow control did with each event of a
 * workflow that has it (admitted, waiting, debounced, skipped, refused), by workflow id, never by
 * key; a workflow without flowControl has no such series.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { hold } from '../helpers/flow.ts'
import { createLive } from '../helpers/workflows.ts'

for (const kind of storeKinds()) {
  describe(`flow control: metrics (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t.close())

    const hook = (secret: string, body: unknown) => t.call('POST', `/v1/webhooks/${secret}`, { key: null, body })
    const flowSeries = async () => {
      const text = (await t.call('GET', '/metrics', { key: null })).body as string
      return text.split('\n').filter((line) => line.startsWith('automaton_flow_control_runs_total{'))
    }

    it('counts each outcome per workflow', async () => {
      const debounced = await createLive(t, {
        definition: hold,
        flowControl: {
          rateLimit: { key: '{{root.result.body.customer}}', limit: 2, periodMs: 60_000 },
          debounce: { periodMs: 60_000 },
        },
      })
      const skipping = await createLive(t, {
        definition: hold,
        flowControl: { concurrency: { key: '{{root.result.body.customer}}', limit: 1, onLimit: 'skip' } },
      })
      const plain = await createLive(t, { definition: hold })
      expect((await hook(debounced.triggerSecret, { customer: 'c1' })).body.data.action).toBe('debounced')
      expect((await hook(debounced.triggerSecret, { customer: 'c1' })).body.data.action).toBe('debounced')
      expect((await hook(debounced.triggerSecret, { customer: 'c1' })).status).toBe(429)
      expect((await hook(skipping.triggerSecret, { customer: 'c1' })).body.data.action).toBe('triggered')
      expect((await hook(skipping.triggerSecret, { customer: 'c1' })).body.data.action).toBe('skipped')
      expect((await hook(plain.triggerSecret, {})).body.data.action).toBe('triggered')

      const series = await flowSeries()
      const of = (workflowId: string, outcome: string) =>
        series.find((l) => l.includes(`workflow_id="${workflowId}"`) && l.includes(`outcome="${outcome}"`))
      expect(of(debounced.id, 'waiting')).toEndWith(' 1')
      expect(of(debounced.id, 'debounced')).toEndWith(' 1')
      expect(of(debounced.id, 'refused')).toEndWith(' 1')
      expect(of(skipping.id, 'admitted')).toEndWith(' 1')
      expect(of(skipping.id, 'skipped')).toEndWith(' 1')
      expect(series.some((l) => l.includes(plain.id))).toBe(false)
      // Keys never become labels.
      expect(series.some((l) => l.includes('c1'))).toBe(false)
    })
  })
}
