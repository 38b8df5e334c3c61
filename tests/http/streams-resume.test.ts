/**
 * Resuming a stream from inside a journal row: the events one write records for a run share a
 * row, and a client that sends back any event id it was given (Last-Event-ID) gets exactly the
 * events after it, on the run stream (ids are the run's sequence) and on the activity and
 * workflow streams (ids are journal ids).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { TERMINAL, three } from '../helpers/run-streams.ts'
import { storeKinds } from '../helpers/services.ts'
import { readSse } from '../helpers/sse.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, createWorkflow, waitForRun } from '../helpers/workflows.ts'

for (const kind of storeKinds()) {
  describe(`resuming streams inside a journal row (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind, { AUTOMATON_SSE_HEARTBEAT_MS: '100' }, { role: 'embedded' })
    })
    afterAll(() => t.close())

    const open = (path: string, headers: Record<string, string> = {}) =>
      t.system.app.handle(
        new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${t.key}`, ...headers } }),
      )
    const shape = (e: { id: string; event: string; data: unknown }) => ({ id: e.id, event: e.event, data: e.data })
    /** A run of the live workflow, started by its webhook, and the sizes of its journal rows. */
    async function webhookRun(triggerSecret: string) {
      const runId = (await t.call('POST', `/v1/webhooks/${triggerSecret}`, { key: null, body: { n: 3 } })).body.data
        .runIds[0] as string
      await waitForRun(t, runId)
      const rows = await t.system.store.all<{ n: number }>('SELECT n FROM journal WHERE run_id = $1', [runId])
      return { runId, rows: rows.map((r) => Number(r.n)) }
    }

    it('resumes a run stream from every sequence number with exactly the events after it', async () => {
      const w = await createLive(t, { definition: three })
      const { runId, rows } = await webhookRun(w.triggerSecret)
      const whole = await readSse(await open(`/v1/runs/${runId}/stream?lastEventId=0`)).until((e) =>
        TERMINAL.includes(e.event),
      )
      // The run's events share rows: fewer rows than events.
      expect(rows.reduce((a, b) => a + b, 0)).toBe(whole.length)
      expect(rows.length).toBeLessThan(whole.length)
      for (let after = 0; after < whole.length; after++) {
        const rest = await readSse(await open(`/v1/runs/${runId}/stream`, { 'last-event-id': String(after) })).until(
          (e) => TERMINAL.includes(e.event),
        )
        expect(rest.map(shape)).toEqual(whole.slice(after).map(shape))
      }
    })

    it('resumes the activity and workflow streams from every journal id inside a row with exactly the events after it', async () => {
      const w = await createLive(t, { definition: three })
      const sse = readSse(await open('/v1/activity/stream'))
      const { runId, rows } = await webhookRun(w.triggerSecret)
      expect(rows.some((n) => n > 1)).toBe(true)
      const seen = await sse.until((e) => e.event === 'run.succeeded' && e.data.runId === runId)
      await sse.cancel()
      const ofRun = seen.filter((e) => e.data.runId === runId)
      const ids = ofRun.map((e) => Number(e.id))
      expect([...ids].sort((a, b) => a - b)).toEqual(ids)
      const lastOf = (e: { event: string; data: { runId?: string } }) =>
        e.event === 'run.succeeded' && e.data.runId === runId
      for (const after of [ids[0] - 1, ...ids.slice(0, -1)]) {
        const rest = await readSse(await open('/v1/activity/stream', { 'last-event-id': String(after) })).until(lastOf)
        expect(rest.map(shape)).toEqual(seen.filter((e) => Number(e.id) > after).map(shape))
        const runs = await readSse(
          await open(`/v1/workflows/${w.id}/runs/stream`, { 'last-event-id': String(after) }),
        ).until(lastOf)
        expect(runs.map(shape)).toEqual(
          ofRun.filter((e) => Number(e.id) > after && e.event.startsWith('run.')).map(shape),
        )
      }
      // From the row's last id, the next event is the next one written.
      const tail = readSse(await open('/v1/activity/stream', { 'last-event-id': String(ids.at(-1)) }))
      const next = await createWorkflow(t, { definition: three })
      const first = await tail.next(5000)
      expect(first).toMatchObject({ event: 'workflow.created', data: { workflowId: next.id } })
      await tail.cancel()
    })
  })
}
