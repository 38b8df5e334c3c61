/**
 * Within one organization, the workflows with runs waiting to start in an executor take turns: one
 * workflow's 300 queued runs hold another's 10 back by one run each, not by the whole backlog. One
 * run executes at a time, held in its HTTP call until the test opens the gate; the receiver records
 * the order the runs call in. The test counts, never times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { eventually } from '../helpers/eventually.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear } from '../helpers/workflows.ts'

for (const kind of storeKinds()) {
  describe(`flow control: workflows of one organization take turns (${kind})`, () => {
    let t: TestSystem
    let receiver: Receiver
    beforeAll(async () => {
      receiver = startReceiver()
      t = await openTestSystem(kind, {
        AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
        AUTOMATON_WORKER_CONCURRENCY: '1',
      })
    })
    afterAll(async () => {
      await t.close()
      await receiver.stop()
    })

    const calling = (name: string) =>
      linear({ call: { type: 'http-request', payload: { url: `${receiver.url}/call?w=${name}` } } }, ['call'])
    /** Triggers `n` runs, a few dozen requests at a time. */
    async function trigger(secret: string, n: number) {
      for (let i = 0; i < n; i += 50) {
        const batch = Array.from({ length: Math.min(50, n - i) }, () =>
          t.call('POST', `/v1/webhooks/${secret}`, { key: null, body: {} }),
        )
        for (const r of await Promise.all(batch)) expect(r.body.data.action).toBe('triggered')
      }
    }
    const called = () => receiver.requests.map((r) => new URL(r.path, receiver.url).searchParams.get('w'))

    it("starts one workflow's 10 runs before another's 300, queued first, have moved by 11", async () => {
      let open!: () => void
      const gate = new Promise<void>((resolve) => (open = resolve))
      receiver.respond(async () => {
        await gate
        return Response.json({ ok: true })
      })
      const flood = await createLive(t, { definition: calling('flood') })
      const few = await createLive(t, { definition: calling('few') })
      await trigger(flood.triggerSecret, 300)
      await eventually(() => receiver.requests.length === 1, 'the one slot to be taken')
      await trigger(few.triggerSecret, 10)
      open()
      await eventually(() => called().filter((w) => w === 'few').length === 10, "the few's ten runs to start", 60_000)
      const order = called()
      const floodBeforeLastFew = order.slice(0, order.lastIndexOf('few')).filter((w) => w === 'flood').length
      // The first flood run held the slot; then one run of each in turn.
      expect(floodBeforeLastFew).toBeLessThanOrEqual(11)
      await eventually(() => called().length === 310, 'every run to start', 60_000)
    }, 120_000)
  })
}
