/** Schedules on the real clock: a one-second schedule ticks about once a second, once per tick. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive } from '../helpers/workflows.ts'

const everySecond = {
  definition: {
    triggerNodeIds: ['root'],
    nodes: { root: { type: 'cronjob', payload: { expression: '* * * * * *' }, children: ['say'] }, say: { type: 'log', payload: { message: '{{$trigger.body.scheduledFor}}' } } },
  },
}

async function ticksOf(t: TestSystem, workflowId: string): Promise<string[]> {
  const rows = await t.system.store.all<{ trigger_event: string }>('SELECT trigger_event FROM runs WHERE workflow_id = $1', [workflowId])
  return rows.map((r) => JSON.parse(r.trigger_event).body.scheduledFor as string).sort()
}

for (const kind of storeKinds()) {
  describe(`schedules on the real clock (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind, { AUTOMATON_MIN_SCHEDULE_INTERVAL_MS: '500' })
    })
    afterAll(() => t.close())

    it('runs a one-second schedule about once a second, and stops when paused', async () => {
      const w = await createLive(t, everySecond)
      await Bun.sleep(2400)
      const ticks = await ticksOf(t, w.id)
      expect(ticks.length).toBeGreaterThanOrEqual(2)
      expect(ticks.length).toBeLessThanOrEqual(3)
      for (let i = 1; i < ticks.length; i++) expect(Date.parse(ticks[i]) - Date.parse(ticks[i - 1])).toBe(1000)
      const statuses = await t.system.store.all<{ status: string }>('SELECT status FROM runs WHERE workflow_id = $1', [w.id])
      expect(statuses.every((r) => ['success', 'running'].includes(r.status))).toBe(true)
      await t.call('POST', `/v1/workflows/${w.id}/pause`)
      const paused = (await ticksOf(t, w.id)).length
      await Bun.sleep(1200)
      expect((await ticksOf(t, w.id)).length).toBe(paused)
    }, 10_000)

    if (kind === 'postgres') {
      it('starts one run per tick with two systems racing on the same database', async () => {
        const w = await createLive(t, everySecond)
        const other = await t.openSibling()
        try {
          await Bun.sleep(2400)
        } finally {
          await other.close()
        }
        const ticks = await ticksOf(t, w.id)
        expect(ticks.length).toBeGreaterThanOrEqual(2)
        expect(new Set(ticks).size).toBe(ticks.length)
        for (let i = 1; i < ticks.length; i++) expect(Date.parse(ticks[i]) - Date.parse(ticks[i - 1])).toBe(1000)
      }, 10_000)
    }
  })
}
