/**
 * Flow control's rules combined: debounce then concurrency, throttle then concurrency, and a rate
 * limit with a debounce. A receiver counts the calls in flight and never sees more than the
 * concurrency limit; the clock is moved by the test, never read to decide.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createSkewedClock } from '../helpers/clock.ts'
import { eventually } from '../helpers/eventually.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'

interface Listed {
  id: string
  status: string
  waitingFor?: { reason: string; key: string }
}

for (const kind of storeKinds()) {
  describe(`flow control: rules combined (${kind})`, () => {
    const clock = createSkewedClock()
    let t: TestSystem
    let receiver: Receiver
    let inFlight = 0
    let most = 0
    let open: () => void = () => {}
    beforeAll(async () => {
      receiver = startReceiver()
      t = await openTestSystem(kind, { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32' }, { clock })
    })
    afterAll(async () => {
      await t.close()
      await receiver.stop()
    })

    /** The receiver holds every call until `open` is called, counting the calls in flight. */
    function gateCalls() {
      inFlight = 0
      most = 0
      const gate = new Promise<void>((resolve) => (open = resolve))
      receiver.respond(async () => {
        most = Math.max(most, ++inFlight)
        await gate
        inFlight--
        return Response.json({ ok: true })
      })
    }
    const calling = () =>
      linear({ call: { type: 'http-request', payload: { url: `${receiver.url}/call?n={{root.result.body.n}}` } } }, [
        'call',
      ])
    const hook = (secret: string, body: unknown) => t.call('POST', `/v1/webhooks/${secret}`, { key: null, body })
    const runsOf = async (workflowId: string) =>
      (await t.call('GET', `/v1/workflows/${workflowId}/runs?limit=100`)).body.data.items as Listed[]
    const waitingAt = async (workflowId: string, reason: string) =>
      (await runsOf(workflowId)).filter((r) => r.waitingFor?.reason === reason)

    it('debounce then concurrency: each key settles to one run, and those runs go one at a time', async () => {
      gateCalls()
      const w = await createLive(t, {
        definition: calling(),
        flowControl: { debounce: { key: '{{root.result.body.doc}}', periodMs: 10_000 }, concurrency: { limit: 1 } },
      })
      const pending = new Map<string, string>()
      for (let n = 0; n < 30; n++) {
        const doc = `d${n % 3}`
        const answer = (await hook(w.triggerSecret, { doc, n })).body.data
        expect(answer.action).toBe('debounced')
        pending.set(doc, answer.runIds[0])
      }
      expect(await waitingAt(w.id, 'debounce')).toHaveLength(3)
      clock.skip(10_001)
      // One run calls; the other two passed their debounce and wait for the concurrency key.
      await eventually(() => receiver.requests.length === 1, 'the first settled run to call')
      await eventually(async () => (await waitingAt(w.id, 'concurrency')).length === 2, 'two waiting at concurrency')
      open()
      for (const [doc, runId] of pending) {
        const run = await waitForRun(t, runId)
        expect(run.status).toBe('success')
        // Each ran with its key's last event: d0 got 27, d1 28, d2 29.
        expect(receiver.requests.some((r) => r.path === `/call?n=${27 + Number(doc.slice(1))}`)).toBe(true)
      }
      expect(receiver.requests).toHaveLength(3)
      expect(most).toBe(1)
    })

    it('throttle then concurrency: starts never beat the bucket, and never more than the limit at once', async () => {
      receiver.requests.length = 0
      gateCalls()
      const w = await createLive(t, {
        definition: calling(),
        flowControl: { throttle: { limit: 2, periodMs: 60_000 }, concurrency: { limit: 1 } },
      })
      const runIds: string[] = []
      for (let n = 0; n < 5; n++) runIds.push((await hook(w.triggerSecret, { n })).body.data.runIds[0])
      // The burst of two passes the throttle: one calls, one waits for the key; three wait for the bucket.
      await eventually(() => receiver.requests.length === 1, 'the first run to call')
      expect(await waitingAt(w.id, 'concurrency')).toHaveLength(1)
      expect(await waitingAt(w.id, 'throttle')).toHaveLength(3)
      open()
      await waitForRun(t, runIds[1])
      // With the gate open and the clock still, the bucket lets nobody else by.
      expect(await waitingAt(w.id, 'throttle')).toHaveLength(3)
      expect(receiver.requests).toHaveLength(2)
      clock.skip(30_000)
      await waitForRun(t, runIds[2])
      expect(await waitingAt(w.id, 'throttle')).toHaveLength(2)
      clock.skip(60_000)
      for (const id of runIds) expect((await waitForRun(t, id)).status).toBe('success')
      expect(receiver.requests).toHaveLength(5)
      expect(most).toBe(1)
    })

    it('a rate limit with a debounce: a refused event neither counts nor replaces the pending data', async () => {
      receiver.requests.length = 0
      receiver.respond(() => Response.json({ ok: true }))
      const w = await createLive(t, {
        definition: calling(),
        flowControl: { rateLimit: { limit: 3, periodMs: 60_000 }, debounce: { periodMs: 10_000 } },
      })
      const answers = []
      for (let n = 0; n < 3; n++) answers.push((await hook(w.triggerSecret, { n })).body.data)
      for (const a of answers) expect(a).toMatchObject({ action: 'debounced', runIds: [answers[0].runIds[0]] })
      const refused = await hook(w.triggerSecret, { n: 99 })
      expect(refused.status).toBe(429)
      expect(refused.body.reason).toBe('rate_limited')
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      clock.skip(10_001)
      expect((await waitForRun(t, answers[0].runIds[0])).status).toBe('success')
      expect(receiver.requests.map((r) => r.path)).toEqual(['/call?n=2'])
    })
  })
}
