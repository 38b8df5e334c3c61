/**
 * Flow control's concurrency limit with onLimit `queue` (the default): at most N runs per key in
 * execution, the rest held as waiting runs (waitingFor concurrency) that start in order as runs end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { eventually } from '../helpers/eventually.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { hold } from '../helpers/flow.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'

for (const kind of storeKinds()) {
  describe(`flow control: concurrency queue (${kind})`, () => {
    let t: TestSystem
    let receiver: Receiver
    beforeAll(async () => {
      receiver = startReceiver()
      t = await openTestSystem(kind, { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32' })
    })
    afterAll(async () => {
      await t.close()
      await receiver.stop()
    })

    const hook = (secret: string, body: unknown) => t.call('POST', `/v1/webhooks/${secret}`, { key: null, body })

    it('never lets a key run more than its limit at once, and starts every held run in turn', async () => {
      // The receiver counts the calls in flight per customer and answers only once the gate opens.
      const inFlight = new Map<string, number>()
      const most = new Map<string, number>()
      let open!: () => void
      const gate = new Promise<void>((resolve) => (open = resolve))
      receiver.respond(async (req) => {
        const key = new URL(req.path, receiver.url).searchParams.get('c') ?? ''
        inFlight.set(key, (inFlight.get(key) ?? 0) + 1)
        most.set(key, Math.max(most.get(key) ?? 0, inFlight.get(key)!))
        await gate
        // A moment in flight after the gate opens, as a real answer takes (pacing: nothing waits on it).
        await Bun.sleep(1)
        inFlight.set(key, inFlight.get(key)! - 1)
        return Response.json({ ok: true })
      })
      const call = {
        type: 'http-request',
        payload: { url: `${receiver.url}/call?c={{root.result.body.customerId}}&r={{$run.id}}` },
      }
      const w = await createLive(t, {
        definition: linear({ call }, ['call']),
        flowControl: { concurrency: { key: '{{root.result.body.customerId}}', limit: 2 } },
      })
      const answers = []
      for (const customerId of ['a', 'a', 'a', 'a', 'a', 'b', 'b', 'b'])
        answers.push(await hook(w.triggerSecret, { customerId }))
      for (const r of answers) expect(r.body.data.action).toBe('triggered')
      const runIds = answers.map((r) => r.body.data.runIds[0] as string)

      // Two calls per customer reach the receiver; the other runs wait, held by their key.
      await eventually(() => receiver.requests.length === 4, 'two calls per customer')
      const listed = (await t.call('GET', `/v1/workflows/${w.id}/runs`)).body.data.items
      const held = listed.filter((r: { waitingFor?: unknown }) => r.waitingFor)
      const heldKeys = held.map((r: { waitingFor: { reason: string; key: string } }) => r.waitingFor)
      expect(heldKeys.filter((h: { key: string }) => h.key === 'a')).toHaveLength(3)
      expect(heldKeys.filter((h: { key: string }) => h.key === 'b')).toHaveLength(1)
      for (const h of heldKeys) expect(h.reason).toBe('concurrency')
      for (const r of held) expect(r.status).toBe('waiting')

      open()
      for (const id of runIds) expect((await waitForRun(t, id)).status).toBe('success')
      expect(receiver.requests).toHaveLength(8)
      expect(most.get('a')).toBe(2)
      expect(most.get('b')).toBe(2)
      // Held runs of a key start in the order they were admitted.
      const aRuns = runIds.slice(0, 5)
      const aCalls = receiver.requests.filter((r) => r.path.includes('c=a&')).map((r) => r.path.split('r=')[1])
      expect(aCalls.slice(0, 2).sort()).toEqual(aRuns.slice(0, 2).sort())
      expect(aCalls.at(-1)).toBe(aRuns[4])
      receiver.respond(() => Response.json({ ok: true }))
    })

    it('releases the key of a held run that is cancelled, and of a run that ends', async () => {
      const w = await createLive(t, { definition: hold, flowControl: { concurrency: { limit: 1 } } })
      const first = (await hook(w.triggerSecret, {})).body.data.runIds[0]
      const second = (await hook(w.triggerSecret, {})).body.data.runIds[0]
      const third = (await hook(w.triggerSecret, {})).body.data.runIds[0]
      await waitForRun(t, first, (r) => r.status === 'waiting' && !r.waitingFor)
      expect((await t.call('GET', `/v1/runs/${second}`)).body.data.waitingFor).toEqual({
        reason: 'concurrency',
        key: '',
      })
      // A held run cancelled leaves the queue without running a node; the run after it keeps its place.
      expect((await t.call('POST', `/v1/runs/${second}/cancel`)).body.data.status).toBe('cancelled')
      const cancelled = (await t.call('GET', `/v1/runs/${second}`)).body.data
      expect(cancelled.nodes.pause.status).toBe('pending')
      expect(cancelled.waitingFor).toBeUndefined()
      expect((await t.call('GET', `/v1/runs/${third}`)).body.data.waitingFor).toBeDefined()
      expect((await t.call('POST', `/v1/runs/${first}/cancel`)).status).toBe(200)
      const started = await waitForRun(
        t,
        third,
        (r) => r.status === 'waiting' && !r.waitingFor && r.nodes?.pause?.status === 'scheduled',
      )
      expect(started.waitingFor).toBeUndefined()
      expect((await t.call('POST', `/v1/runs/${third}/cancel`)).status).toBe(200)
    })

    it('cancel-in-progress: the newest run of a key cancels the one in execution and starts after it', async () => {
      const w = await createLive(t, {
        definition: hold,
        flowControl: { concurrency: { key: '{{root.result.body.doc}}', limit: 1, onLimit: 'cancel-in-progress' } },
      })
      const inDelay = (r: { status: string; waitingFor?: unknown; nodes?: { pause?: { status: string } } }) =>
        r.status === 'waiting' && !r.waitingFor && r.nodes?.pause?.status === 'scheduled'
      const first = (await hook(w.triggerSecret, { doc: 'd1' })).body.data.runIds[0]
      await waitForRun(t, first, inDelay)
      const other = (await hook(w.triggerSecret, { doc: 'd2' })).body.data.runIds[0]
      const second = (await hook(w.triggerSecret, { doc: 'd1' })).body.data.runIds[0]
      const third = (await hook(w.triggerSecret, { doc: 'd1' })).body.data.runIds[0]
      expect((await waitForRun(t, first)).status).toBe('cancelled')
      expect((await waitForRun(t, second)).status).toBe('cancelled')
      await waitForRun(t, third, inDelay)
      // Another key is left alone.
      await waitForRun(t, other, inDelay)
      for (const id of [third, other]) expect((await t.call('POST', `/v1/runs/${id}/cancel`)).status).toBe(200)
    })
  })
}
