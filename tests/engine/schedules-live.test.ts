/**
 * Schedules on the system clock: a one-second schedule ticks by itself (the ticker's own timers,
 * which tests/engine/schedules.test.ts drives by hand on a manual clock), one run per tick on
 * whole seconds, every second accounted for, and none after a pause. Nothing here is timed: the
 * test waits for ticks to be recorded, and a second schedule that keeps ticking shows when the
 * ticker has gone past the pause.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { systemClock } from '../../core/ports/clock.ts'
import { until } from '../helpers/process.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive } from '../helpers/workflows.ts'

const everySecond = {
  definition: {
    triggerNodeIds: ['root'],
    nodes: {
      root: { type: 'cronjob', payload: { expression: '* * * * * *' }, children: ['say'] },
      say: { type: 'log', payload: { message: '{{$trigger.body.scheduledFor}}' } },
    },
  },
}

async function ticksOf(t: TestSystem, workflowId: string): Promise<number[]> {
  const rows = await t.system.store.all<{ trigger_event: string }>(
    'SELECT trigger_event FROM runs WHERE workflow_id = $1',
    [workflowId],
  )
  return rows.map((r) => Date.parse(JSON.parse(r.trigger_event).body.scheduledFor)).sort((a, b) => a - b)
}

/** The ticks of a workflow once it has at least `count`. */
const ticked = (t: TestSystem, workflowId: string, count: number, where = (_: number) => true) =>
  until(`${count} ticks of ${workflowId}`, async () => {
    const ticks = await ticksOf(t, workflowId)
    return ticks.filter(where).length >= count ? ticks : undefined
  })

/**
 * One run per tick, each on a whole second after the last. A tick fired more than half a second
 * late counts as missed (a busy machine), so a run may be a few seconds after the one before;
 * `skipped`, the schedule's count of missed ticks, then accounts for every second in between.
 */
function expectOneRunPerTick(ticks: number[], skipped?: number) {
  expect(ticks.every((tick) => tick % 1000 === 0)).toBe(true)
  const gaps = ticks.slice(1).map((tick, i) => tick - ticks[i])
  expect(gaps.filter((gap) => gap <= 0)).toEqual([])
  if (skipped !== undefined)
    expect(ticks.length + skipped).toBeGreaterThanOrEqual((ticks.at(-1)! - ticks[0]) / 1000 + 1)
}

const skippedOf = async (t: TestSystem, workflowId: string): Promise<number> =>
  (await t.call('GET', `/v1/workflows/${workflowId}/schedule`)).body.data.triggers[0].skippedTicks

for (const kind of storeKinds()) {
  describe(`schedules on the system clock (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind, { AUTOMATON_MIN_SCHEDULE_INTERVAL_MS: '500' }, { clock: systemClock })
    })
    afterAll(() => t.close())

    it('runs a one-second schedule by itself, once per tick, and not after it is paused', async () => {
      const w = await createLive(t, everySecond)
      const witness = await createLive(t, everySecond)
      await ticked(t, w.id, 3)
      const statuses = await t.system.store.all<{ status: string }>('SELECT status FROM runs WHERE workflow_id = $1', [
        w.id,
      ])
      expect(statuses.every((r) => ['success', 'running'].includes(r.status))).toBe(true)
      expect((await t.call('POST', `/v1/workflows/${w.id}/pause`)).status).toBe(200)
      const pausedAt = systemClock.now()
      // A tick the ticker fired for the witness two seconds after the pause: every pass before it,
      // including any that could have fired the paused schedule, has been recorded.
      await ticked(t, witness.id, 1, (tick) => tick >= pausedAt + 2000)
      const ticks = await ticksOf(t, w.id)
      expect(ticks.filter((tick) => tick > pausedAt)).toEqual([])
      expectOneRunPerTick(ticks, await skippedOf(t, w.id))
    })

    if (kind === 'postgres') {
      it('starts one run per tick with two systems racing on the same database', async () => {
        const w = await createLive(t, everySecond)
        const other = await t.openSibling()
        try {
          await ticked(t, w.id, 3)
        } finally {
          await other.close()
        }
        expectOneRunPerTick(await ticksOf(t, w.id))
      })
    }
  })
}
