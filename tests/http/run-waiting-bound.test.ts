/**
 * The bound of `Prefer: wait=<seconds>`: a run that does not end within the wait (it waits for an
 * approval that never comes) is answered as without the header at the end of the wait: 200, the
 * usual body, no `run`, no `Preference-Applied`. The wait runs on the system's clock, which the
 * test moves, so nothing here depends on the wall clock; a wait asked beyond 60 seconds waits 60.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Clock, createManualClock } from '../../core/ports/clock.ts'
import { eventually } from '../helpers/eventually.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'

const held = linear({ ok: { type: 'approval', payload: { message: 'ship it?' } } }, ['ok'])

for (const kind of storeKinds()) {
  describe(`an answer that waits no longer than asked (${kind})`, () => {
    const manual = createManualClock(Date.parse('2026-03-26T12:00:00Z'))
    /** Every wait asked of the system's clock, in milliseconds. */
    const asked: number[] = []
    const clock: Clock = {
      now: manual.now,
      sleep(ms, signal) {
        asked.push(ms)
        return manual.sleep!(ms, signal)
      },
    }
    let t: TestSystem
    let live: { id: string; triggerSecret: string }
    beforeAll(async () => {
      t = await openTestSystem(kind, {}, { clock })
      live = await createLive(t, { name: 'held', definition: held })
    })
    afterAll(() => t.close())

    /** Sends the request, and resolves with its answer and whether it came before the clock moved `ms`. */
    async function answeredAfter(send: () => Promise<any>, ms: number) {
      const from = asked.length
      let settled = false
      const answer = send().finally(() => {
        settled = true
      })
      await eventually(() => asked.slice(from).includes(ms), `a wait of ${ms} ms`)
      const early = settled
      manual.advance(ms)
      return { answer: await answer, early, asked: asked.slice(from) }
    }

    it('answers a webhook as without the header when the run did not end within the wait', async () => {
      const { answer, early } = await answeredAfter(
        () =>
          t.call('POST', `/v1/webhooks/${live.triggerSecret}`, { key: null, body: {}, headers: { prefer: 'wait=7' } }),
        7_000,
      )
      expect(early).toBe(false)
      expect(answer.status).toBe(200)
      expect(answer.body.data).toEqual({
        action: 'triggered',
        eventId: expect.any(String),
        runIds: [expect.any(String)],
      })
      expect(answer.headers.get('preference-applied')).toBeNull()
      const run = await waitForRun(t, answer.body.data.runIds[0], (r) => r.status !== 'running')
      expect(run).toMatchObject({ status: 'waiting', finishedAt: '' })
    })

    it('waits at most 60 seconds, whatever is asked, then answers an API run with its id only', async () => {
      const { answer, early, asked } = await answeredAfter(
        () =>
          t.call('POST', `/v1/workflows/${live.id}/run`, { body: { payload: {} }, headers: { prefer: 'wait=3600' } }),
        60_000,
      )
      expect(asked).not.toContain(3_600_000)
      expect(early).toBe(false)
      expect(answer.status).toBe(200)
      expect(answer.body.data).toEqual({ runId: expect.any(String) })
      expect(answer.headers.get('preference-applied')).toBeNull()
      const run = await waitForRun(t, answer.body.data.runId, (r) => r.status !== 'running')
      expect(run.status).toBe('waiting')
    })
  })
}
