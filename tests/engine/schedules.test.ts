/**
 * The schedule scheduler on a manual clock: each tick fires exactly once (also with two
 * schedulers on one store), run controls apply, pause and archive stop ticks, and ticks missed
 * while the service was down are skipped or caught up as the trigger says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createManualClock } from '../../core/ports/clock.ts'
import { createScheduleTicker } from '../../runtime/schedules/scheduler.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, waitForRun } from '../helpers/workflows.ts'

const MINUTE = 60_000
const START = Date.parse('2026-01-01T00:00:00Z')

const cronFlow = (expression: string, extra: Record<string, unknown> = {}, settings: Record<string, unknown> = {}) => ({
  ...settings,
  definition: {
    triggerNodeIds: ['root'],
    nodes: {
      root: { type: 'cronjob', payload: { expression, ...extra }, children: ['say'] },
      say: { type: 'log', payload: { message: 'tick {{$trigger.body.scheduledFor}}' } },
    },
  },
})

interface TickRun {
  id: string
  scheduledFor: string
  catchUp: boolean
  triggeredBy: string
  triggerNodeId: string
}

async function runsOf(t: TestSystem, workflowId: string): Promise<TickRun[]> {
  const rows = await t.system.store.all<{
    id: string
    trigger_event: string
    triggered_by: string
    trigger_node_id: string
  }>('SELECT id, trigger_event, triggered_by, trigger_node_id FROM runs WHERE workflow_id = $1', [workflowId])
  return rows
    .map((r) => {
      const body = JSON.parse(r.trigger_event).body
      return {
        id: r.id,
        scheduledFor: body.scheduledFor,
        catchUp: body.catchUp,
        triggeredBy: r.triggered_by,
        triggerNodeId: r.trigger_node_id,
      }
    })
    .sort((a, b) => a.scheduledFor.localeCompare(b.scheduledFor))
}

const at = (minutes: number, seconds = 0) => new Date(START + minutes * MINUTE + seconds * 1000).toISOString()
const tick = (t: TestSystem) => t.system.engine.schedules.tick()

for (const kind of storeKinds()) {
  describe(`the schedule scheduler (${kind})`, () => {
    let t: TestSystem
    const clock = createManualClock(START)
    beforeAll(async () => {
      t = await openTestSystem(kind, {}, { clock })
    })
    afterAll(() => t.close())

    const schedule = async (id: string) => (await t.call('GET', `/v1/workflows/${id}/schedule`)).body.data
    const moveTo = async (ms: number) => {
      clock.set(ms)
      await tick(t)
    }
    /**
     * Back to START before a test: the clock never goes backwards in production, so first let a
     * tick that read the previous test's time finish, lest it see this test's new schedules.
     */
    const rewind = async () => {
      await tick(t)
      clock.set(START)
      await tick(t)
    }

    it('starts one run per tick, carrying the tick in its event', async () => {
      await rewind()
      const w = await createLive(t, cronFlow('*/5 * * * *'))
      expect((await schedule(w.id)).triggers[0].nextFireAt).toBe(at(5))
      await moveTo(START + 4 * MINUTE)
      expect(await runsOf(t, w.id)).toEqual([])
      await moveTo(START + 5 * MINUTE + 300)
      await tick(t)
      const [first, ...rest] = await runsOf(t, w.id)
      expect(rest).toEqual([])
      expect(first).toMatchObject({
        scheduledFor: at(5),
        catchUp: false,
        triggeredBy: 'schedule',
        triggerNodeId: 'root',
      })
      const run = await waitForRun(t, first.id)
      expect(run).toMatchObject({ status: 'success', triggerType: 'cronjob', triggeredBy: 'schedule' })
      expect(run.nodes.root.result).toMatchObject({
        type: 'cronjob',
        headers: {},
        body: {
          scheduledFor: at(5),
          firedAt: at(5, 0.3),
          expression: '*/5 * * * *',
          timezone: 'UTC',
          catchUp: false,
          scheduleId: expect.stringMatching(/^sch_/),
        },
      })
      expect(run.nodes.say.result.message).toBe(`tick ${at(5)}`)
      await moveTo(START + 10 * MINUTE)
      expect((await runsOf(t, w.id)).map((r) => r.scheduledFor)).toEqual([at(5), at(10)])
      expect((await schedule(w.id)).triggers[0]).toMatchObject({
        nextFireAt: at(15),
        lastFiredAt: at(10),
        lastOutcome: 'triggered',
        skippedTicks: 0,
      })
    })

    it('starts exactly one run per tick when two schedulers race on the same store', async () => {
      await rewind()
      const w = await createLive(t, cronFlow('* * * * *'))
      // Postgres: a second system on the same database, as a second process. SQLite: a second
      // scheduler on the same store, because one process cannot hold two SQLite writers without
      // blocking itself (tests/e2e/schedules.test.ts races two processes on one SQLite file).
      const other = kind === 'postgres' ? await t.openSibling({}, { clock }) : null
      const rival =
        other?.system.engine.schedules ??
        createScheduleTicker({
          ...t.system,
          dispatcher: t.system.engine.dispatcher,
          reconciler: t.system.engine.reconciler,
          graceMs: 60_000,
        })
      try {
        for (let minute = 1; minute <= 12; minute++) {
          clock.set(START + minute * MINUTE)
          await Promise.all([tick(t), rival.tick(), tick(t), rival.tick()])
        }
      } finally {
        await other?.close()
      }
      const runs = await runsOf(t, w.id)
      expect(runs.map((r) => r.scheduledFor)).toEqual(Array.from({ length: 12 }, (_, i) => at(i + 1)))
    })

    it('stops ticking while paused or archived, and resumes from now without catching up', async () => {
      await rewind()
      const w = await createLive(t, cronFlow('*/5 * * * *', { catchUp: 'all' }))
      await moveTo(START + 5 * MINUTE)
      await t.call('POST', `/v1/workflows/${w.id}/pause`)
      await moveTo(START + 20 * MINUTE)
      expect((await runsOf(t, w.id)).map((r) => r.scheduledFor)).toEqual([at(5)])
      await t.call('POST', `/v1/workflows/${w.id}/resume`)
      expect((await schedule(w.id)).triggers[0]).toMatchObject({ active: true, nextFireAt: at(25), skippedTicks: 0 })
      await moveTo(START + 25 * MINUTE)
      await t.call('DELETE', `/v1/workflows/${w.id}`)
      await moveTo(START + 40 * MINUTE)
      await t.call('POST', `/v1/workflows/${w.id}/unarchive`)
      await moveTo(START + 45 * MINUTE)
      expect((await runsOf(t, w.id)).map((r) => r.scheduledFor)).toEqual([at(5), at(25), at(45)])
    })

    it('applies run controls: remaining runs pause the schedule, a refill restarts it, the cooldown skips a tick', async () => {
      await rewind()
      const limited = await createLive(t, cronFlow('*/5 * * * *', {}, { maxRuns: 2 }))
      await moveTo(START + 5 * MINUTE)
      await moveTo(START + 10 * MINUTE)
      expect((await t.call('GET', `/v1/workflows/${limited.id}`)).body.data).toMatchObject({
        status: 'paused',
        pausedReason: 'max_runs_exhausted',
      })
      expect(await schedule(limited.id)).toMatchObject({ active: false, reason: 'paused' })
      await moveTo(START + 15 * MINUTE)
      expect(await runsOf(t, limited.id)).toHaveLength(2)
      await t.call('POST', `/v1/workflows/${limited.id}/refill`, { body: { remainRuns: 1 } })
      await moveTo(START + 20 * MINUTE)
      expect((await runsOf(t, limited.id)).map((r) => r.scheduledFor)).toEqual([at(5), at(10), at(20)])

      await rewind()
      const cooled = await createLive(t, cronFlow('*/5 * * * *', {}, { cooldownMs: 7 * MINUTE }))
      for (const minute of [5, 10, 15]) await moveTo(START + minute * MINUTE)
      expect((await runsOf(t, cooled.id)).map((r) => r.scheduledFor)).toEqual([at(5), at(15)])
      await moveTo(START + 20 * MINUTE)
      expect((await schedule(cooled.id)).triggers[0]).toMatchObject({
        lastFiredAt: at(20),
        lastOutcome: 'cooldown',
        lastRunId: '',
      })
    })

    it('skips ticks missed while the service was down, and counts them', async () => {
      await rewind()
      const w = await createLive(t, cronFlow('*/5 * * * *'))
      await moveTo(START + 5 * MINUTE)
      await t.stop()
      clock.set(START + 31 * MINUTE)
      t = await t.openSibling({}, { clock })
      await tick(t)
      expect((await runsOf(t, w.id)).map((r) => r.scheduledFor)).toEqual([at(5), at(30)])
      expect((await schedule(w.id)).triggers[0]).toMatchObject({
        skippedTicks: 4,
        lastSkippedAt: at(31),
        nextFireAt: at(35),
      })
    })

    it('runs the latest missed tick once with catchUp "last", and each missed tick up to the limit with "all"', async () => {
      await rewind()
      const last = await createLive(t, cronFlow('*/5 * * * *', { catchUp: 'last' }))
      const all = await createLive(t, cronFlow('*/5 * * * *', { catchUp: 'all', catchUpLimit: 3 }))
      await t.stop()
      clock.set(START + 33 * MINUTE)
      t = await t.openSibling({}, { clock })
      for (let i = 0; i < 5; i++) await tick(t)
      expect(await runsOf(t, last.id)).toEqual([expect.objectContaining({ scheduledFor: at(30), catchUp: true })])
      expect((await runsOf(t, all.id)).map((r) => [r.scheduledFor, r.catchUp])).toEqual([
        [at(20), true],
        [at(25), true],
        [at(30), true],
      ])
      expect((await schedule(last.id)).triggers[0]).toMatchObject({ skippedTicks: 5, nextFireAt: at(35) })
      expect((await schedule(all.id)).triggers[0]).toMatchObject({ skippedTicks: 3, nextFireAt: at(35) })
    })

    it('fires a tick that is only a little late after a quick restart', async () => {
      await rewind()
      const w = await createLive(t, cronFlow('*/5 * * * *'))
      await t.stop()
      clock.set(START + 5 * MINUTE + 20_000)
      t = await t.openSibling({}, { clock })
      await tick(t)
      expect(await runsOf(t, w.id)).toEqual([expect.objectContaining({ scheduledFor: at(5), catchUp: false })])
    })

    it('creates the rows of live workflows at start, as after an upgrade', async () => {
      await rewind()
      const w = await createLive(t, cronFlow('*/5 * * * *'))
      await t.system.store.write((tx) => tx.run('DELETE FROM schedules WHERE workflow_id = $1', [w.id]))
      expect((await schedule(w.id)).triggers).toEqual([])
      await t.stop()
      t = await t.openSibling({}, { clock })
      expect((await schedule(w.id)).triggers[0]).toMatchObject({ active: true, nextFireAt: at(5) })
    })
  })
}
