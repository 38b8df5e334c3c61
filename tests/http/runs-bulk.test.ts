/**
 * Runs by start-time range, and bulk cancel and retry bounded by the count the caller confirmed:
 * the console's run list and its bulk actions, over the API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createSkewedClock } from '../helpers/clock.ts'
import { eventually } from '../helpers/eventually.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive } from '../helpers/workflows.ts'

const HOLD = {
  triggerNodeIds: ['root'],
  nodes: { root: { type: 'manual', children: ['hold'] }, hold: { type: 'delay', payload: { delayMs: 3_600_000 } } },
}

for (const kind of storeKinds()) {
  describe(`runs by time range and in bulk (${kind})`, () => {
    let t: TestSystem
    let a: { id: string }
    let b: { id: string }
    let mid = 0
    const clock = createSkewedClock()
    const first: string[] = []
    const later: string[] = []

    const start = async (workflowId: string) => {
      const r = await t.call('POST', `/v1/workflows/${workflowId}/run`, { body: {} })
      expect(r.status).toBe(200)
      return r.body.data.runId as string
    }
    const waitUntil = (workflowId: string, status: string, n: number) =>
      eventually(
        async () =>
          (await t.call('GET', `/v1/runs/status-counts?workflowId=${workflowId}`)).body.data.counts[status] === n,
        `${workflowId} having ${n} ${status} runs`,
      )

    beforeAll(async () => {
      t = await openTestSystem(kind, {}, { clock })
      a = await createLive(t, { name: 'A', definition: HOLD })
      b = await createLive(t, { name: 'B', definition: HOLD })
      for (let i = 0; i < 2; i++) first.push(await start(a.id))
      // The runs before `mid` and those after it start a second apart on the system's clock.
      clock.skip(1000)
      mid = clock.now()
      clock.skip(1000)
      for (let i = 0; i < 3; i++) later.push(await start(a.id))
      await start(b.id)
      await waitUntil(a.id, 'waiting', 5)
      await waitUntil(b.id, 'waiting', 1)
    })
    afterAll(() => t.close())

    it('lists and counts runs by start time: since ≤ startedAt < until', async () => {
      const ids = async (q: string) =>
        (await t.call('GET', `/v1/runs?workflowId=${a.id}&${q}`)).body.data.items
          .map((r: { id: string }) => r.id)
          .sort()
      expect(await ids(`since=${mid}`)).toEqual([...later].sort())
      expect(await ids(`until=${mid}`)).toEqual([...first].sort())
      expect(await ids(`since=${mid}&until=${mid}`)).toEqual([])
      const counts = (await t.call('GET', `/v1/runs/status-counts?workflowId=${a.id}&until=${mid}`)).body.data
      expect(counts.total).toBe(2)
      expect((await t.call('GET', '/v1/runs?since=-1')).status).toBe(400)
    })

    it('cancels no more unfinished runs than the count confirmed, oldest first, and only those that match', async () => {
      const cancelled = await t.call('POST', '/v1/runs/bulk-cancel', { body: { workflowId: a.id, expectedCount: 3 } })
      expect(cancelled.status).toBe(200)
      expect(cancelled.body.data).toEqual({ cancelled: 3 })
      const status = async (id: string) => (await t.call('GET', `/v1/runs/${id}?summary=true`)).body.data.status
      expect(await Promise.all([...first, later[0]].map(status))).toEqual(['cancelled', 'cancelled', 'cancelled'])
      expect(await Promise.all(later.slice(1).map(status))).toEqual(['waiting', 'waiting'])
      expect((await t.call('GET', `/v1/runs/status-counts?workflowId=${b.id}`)).body.data.counts.waiting).toBe(1)
    })

    it('refuses a status the action cannot take, an unknown workflow and a missing count', async () => {
      const wrong = await t.call('POST', '/v1/runs/bulk-cancel', { body: { status: 'success', expectedCount: 1 } })
      expect(wrong.status).toBe(400)
      expect(
        (await t.call('POST', '/v1/runs/bulk-retry', { body: { status: 'waiting', expectedCount: 1 } })).status,
      ).toBe(400)
      expect(
        (await t.call('POST', '/v1/runs/bulk-cancel', { body: { workflowId: 'wf_nothing', expectedCount: 1 } })).status,
      ).toBe(404)
      expect((await t.call('POST', '/v1/runs/bulk-cancel', { body: { workflowId: a.id } })).status).toBe(400)
      expect(
        (await t.call('POST', '/v1/runs/bulk-cancel', { body: { workflowId: a.id, expectedCount: 0 } })).status,
      ).toBe(400)
    })

    it('touches no run of another organization', async () => {
      const other = await t.newOrganization('other')
      const none = await t.call('POST', '/v1/runs/bulk-cancel', { key: other.key, body: { expectedCount: 1000 } })
      expect(none.body.data).toEqual({ cancelled: 0 })
      expect((await t.call('GET', `/v1/runs/status-counts?workflowId=${a.id}`)).body.data.counts.waiting).toBe(2)
    })

    it('retries the cancelled runs, each as a new run, up to the count confirmed', async () => {
      const retried = await t.call('POST', '/v1/runs/bulk-retry', {
        body: { workflowId: a.id, status: 'cancelled', expectedCount: 2 },
      })
      expect(retried.status).toBe(200)
      expect(retried.body.data.retried).toBe(2)
      expect(retried.body.data.runIds).toHaveLength(2)
      for (const id of retried.body.data.runIds) {
        const run = (await t.call('GET', `/v1/runs/${id}?summary=true`)).body.data
        expect(run.triggeredBy).toBe('retry')
        expect(first).toContain(run.retryOf)
      }
      await waitUntil(a.id, 'waiting', 4)
      // Asked again (a double click, a client's retry), runs already retried are left alone.
      const again = await t.call('POST', '/v1/runs/bulk-retry', { body: { workflowId: a.id, expectedCount: 10 } })
      expect(again.body.data.retried).toBe(1)
      expect((await t.call('GET', `/v1/runs/${again.body.data.runIds[0]}?summary=true`)).body.data.retryOf).toBe(
        later[0],
      )
      expect(
        (await t.call('POST', '/v1/runs/bulk-retry', { body: { workflowId: a.id, expectedCount: 10 } })).body.data,
      ).toEqual({ retried: 0, runIds: [] })
    })
  })
}
