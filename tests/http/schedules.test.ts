/** The cronjob and schedule triggers over HTTP: validation, the minimum interval at publish, and GET …/schedule. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createManualClock } from '../../core/ports/clock.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, createWorkflow, publish } from '../helpers/workflows.ts'

const trigger = (type: string, payload: Record<string, unknown>) => ({
  triggerNodeIds: ['root'],
  nodes: {
    root: { type, payload, children: ['say'] },
    say: { type: 'log', payload: { message: 'tick {{$trigger.body.scheduledFor}}' } },
  },
})
const cron = (expression: string, extra: Record<string, unknown> = {}) => trigger('cronjob', { expression, ...extra })
const rrule = (text: string, extra: Record<string, unknown> = {}) => trigger('schedule', { rrule: text, ...extra })

for (const kind of storeKinds()) {
  describe(`schedule triggers over HTTP (${kind})`, () => {
    let t: TestSystem
    const clock = createManualClock(Date.parse('2026-03-26T12:00:00Z'))
    beforeAll(async () => {
      t = await openTestSystem(kind, {}, { clock })
    })
    afterAll(() => t.close())

    const create = (definition: unknown) => t.call('POST', '/v1/workflows', { body: { definition } })

    it('lists cronjob and schedule in the trigger catalog of the core plugin', () => {
      const types = t.system.registry.triggers().map((x) => x.type)
      expect(types).toContain('cronjob')
      expect(types).toContain('schedule')
    })

    it('refuses an invalid cron expression, time zone or rrule with 400 and a detail per problem', async () => {
      const cases: Array<[unknown, string, string]> = [
        [cron('* * *'), '/definition/nodes/root/payload/expression', 'has 3 fields'],
        [cron('0 25 * * *'), '/definition/nodes/root/payload/expression', 'not a valid cron expression'],
        [
          cron('0 9 * * *', { timezone: 'Europe/Atlantis' }),
          '/definition/nodes/root/payload/timezone',
          'not a known time zone',
        ],
        [rrule('RRULE:FREQ=DAILY'), '/definition/nodes/root/payload/rrule', 'needs a DTSTART'],
        [
          rrule('DTSTART:20260101T090000Z\nRRULE:FREQ=DAILY;BYHOUR=24'),
          '/definition/nodes/root/payload/rrule',
          'BYHOUR',
        ],
        [
          rrule('DTSTART;TZID=Mars/Base:20260101T090000\nRRULE:FREQ=DAILY'),
          '/definition/nodes/root/payload/rrule',
          'TZID',
        ],
        [trigger('cronjob', {}), '/definition/nodes/root/payload/expression', ''],
        [cron('0 9 * * *', { catchUp: 'sometimes' }), '/definition/nodes/root/payload/catchUp', ''],
      ]
      for (const [definition, path, message] of cases) {
        const r = await create(definition)
        expect(r.status).toBe(400)
        expect(r.body.details).toContainEqual(
          expect.objectContaining({ path, message: expect.stringContaining(message) }),
        )
      }
    })

    it('refuses an invalid expression on update too', async () => {
      const w = await createWorkflow(t, { definition: cron('0 9 * * *') })
      const r = await t.call('PUT', `/v1/workflows/${w.id}`, { body: { definition: cron('0 9 * * * * *') } })
      expect(r.status).toBe(400)
      expect(r.body.details[0]).toMatchObject({
        path: '/definition/nodes/root/payload/expression',
        message: expect.stringContaining('7 fields'),
      })
    })

    it('refuses at publish a schedule that ticks more often than the minimum interval', async () => {
      for (const definition of [
        cron('*/30 * * * * *'),
        rrule('DTSTART:20260101T000000Z\nRRULE:FREQ=SECONDLY;INTERVAL=10'),
        cron('0,30 0 9 * * *'),
      ]) {
        const w = await createWorkflow(t, { definition })
        const r = await t.call('POST', `/v1/workflows/${w.id}/publish`)
        expect(r.status).toBe(400)
        expect(r.body.message).toBe('the workflow cannot be published')
        expect(r.body.details[0]).toMatchObject({
          path: '/definition/nodes/root/payload',
          minIntervalMs: 60000,
          intervalMs: expect.any(Number),
        })
        expect(r.body.details[0].message).toContain('the minimum interval between two ticks is 60 s')
        expect((await t.call('GET', `/v1/workflows/${w.id}`)).body.data.status).toBe('draft')
      }
      const ok = await createWorkflow(t, { definition: cron('* * * * *') })
      expect((await t.call('POST', `/v1/workflows/${ok.id}/publish`)).status).toBe(200)
    })

    it('answers 404 for an unknown workflow and says why a workflow does not tick', async () => {
      expect((await t.call('GET', '/v1/workflows/wf_nope/schedule')).status).toBe(404)
      const draft = await createWorkflow(t, { definition: cron('0 9 * * *') })
      expect((await t.call('GET', `/v1/workflows/${draft.id}/schedule`)).body.data).toEqual({
        workflowId: draft.id,
        liveVersion: null,
        active: false,
        reason: 'not_published',
        triggers: [],
      })
      const manual = await createLive(t, {
        definition: { triggerNodeIds: ['root'], nodes: { root: { type: 'manual' } } },
      })
      expect((await t.call('GET', `/v1/workflows/${manual.id}/schedule`)).body.data).toMatchObject({
        active: false,
        reason: 'no_schedule_triggers',
        triggers: [],
      })
    })

    it("shows the next fire time and the next ticks, in the trigger's time zone across the change to summer time", async () => {
      const w = await createLive(t, {
        definition: rrule('DTSTART;TZID=Europe/Berlin:20260101T090000\nRRULE:FREQ=DAILY'),
      })
      const r = await t.call('GET', `/v1/workflows/${w.id}/schedule`)
      expect(r.status).toBe(200)
      expect(r.body.data).toMatchObject({ workflowId: w.id, liveVersion: 1, active: true, reason: '' })
      expect(r.body.data.triggers).toEqual([
        {
          triggerNodeId: 'root',
          type: 'schedule',
          expression: 'DTSTART;TZID=Europe/Berlin:20260101T090000\nRRULE:FREQ=DAILY',
          timezone: 'Europe/Berlin',
          catchUp: 'skip',
          catchUpLimit: 10,
          active: true,
          nextFireAt: '2026-03-27T08:00:00.000Z',
          upcoming: [
            '2026-03-27T08:00:00.000Z',
            '2026-03-28T08:00:00.000Z',
            '2026-03-29T07:00:00.000Z',
            '2026-03-30T07:00:00.000Z',
            '2026-03-31T07:00:00.000Z',
          ],
          lastFiredAt: '',
          lastRunId: '',
          lastOutcome: '',
          skippedTicks: 0,
          lastSkippedAt: '',
        },
      ])
    })

    it('shows paused and archived schedules as inactive, and needs workflow:read', async () => {
      const w = await createLive(t, {
        definition: cron('0 9 * * *', { timezone: 'America/New_York', catchUp: 'all', catchUpLimit: 3 }),
      })
      await t.call('POST', `/v1/workflows/${w.id}/pause`)
      let s = (await t.call('GET', `/v1/workflows/${w.id}/schedule`)).body.data
      expect(s).toMatchObject({ active: false, reason: 'paused' })
      expect(s.triggers[0]).toMatchObject({
        active: false,
        nextFireAt: '',
        upcoming: [],
        catchUp: 'all',
        catchUpLimit: 3,
        timezone: 'America/New_York',
      })
      await t.call('POST', `/v1/workflows/${w.id}/resume`)
      s = (await t.call('GET', `/v1/workflows/${w.id}/schedule`)).body.data
      expect(s).toMatchObject({ active: true, reason: '' })
      expect(s.triggers[0].nextFireAt).toBe('2026-03-26T13:00:00.000Z')
      await t.call('DELETE', `/v1/workflows/${w.id}`)
      expect((await t.call('GET', `/v1/workflows/${w.id}/schedule`)).body.data).toMatchObject({
        active: false,
        reason: 'archived',
      })
      const other = await t.newOrganization('elsewhere')
      expect((await t.call('GET', `/v1/workflows/${w.id}/schedule`, { key: other.key })).status).toBe(404)
      expect((await t.call('GET', `/v1/workflows/${w.id}/schedule`, { key: null })).status).toBe(401)
    })

    it('keeps one row per schedule trigger of a multi-trigger workflow and follows a republished expression', async () => {
      const definition = {
        triggerNodeIds: ['morning', 'evening', 'hook'],
        nodes: {
          morning: { type: 'cronjob', payload: { expression: '0 8 * * *' }, children: ['say'] },
          evening: {
            type: 'schedule',
            payload: { rrule: 'DTSTART:20260101T200000Z\nRRULE:FREQ=DAILY' },
            children: ['say'],
          },
          hook: { type: 'manual', children: ['say'] },
          say: { type: 'log', payload: { message: 'hi' } },
        },
      }
      const w = await createLive(t, { definition })
      let s = (await t.call('GET', `/v1/workflows/${w.id}/schedule`)).body.data
      expect(s.triggers.map((x: any) => [x.triggerNodeId, x.nextFireAt])).toEqual([
        ['evening', '2026-03-26T20:00:00.000Z'],
        ['morning', '2026-03-27T08:00:00.000Z'],
      ])
      const changed = structuredClone(definition)
      changed.nodes.morning.payload.expression = '0 6 * * *'
      ;(changed as any).triggerNodeIds = ['morning', 'hook']
      delete (changed.nodes as any).evening
      expect((await t.call('PUT', `/v1/workflows/${w.id}`, { body: { definition: changed } })).status).toBe(200)
      s = (await t.call('GET', `/v1/workflows/${w.id}/schedule`)).body.data
      expect(s.triggers.map((x: any) => x.expression)).toEqual(
        ['0 8 * * *', 'DTSTART:20260101T200000Z\nRRULE:FREQ=DAILY'].reverse(),
      )
      await publish(t, w.id)
      s = (await t.call('GET', `/v1/workflows/${w.id}/schedule`)).body.data
      expect(s).toMatchObject({ liveVersion: 2, active: true })
      expect(s.triggers.map((x: any) => [x.triggerNodeId, x.expression, x.nextFireAt])).toEqual([
        ['morning', '0 6 * * *', '2026-03-27T06:00:00.000Z'],
      ])
    })
  })
}
