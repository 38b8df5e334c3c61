/**
 * Within one organization, the workflows with runs waiting to start in an executor take turns: one
 * workflow's 300 queued runs hold another's 10 back by one run each, not by the whole backlog. One
 * run executes at a time, held in its HTTP call until the test opens the gate; the receiver records
 * the order the runs call in. The test counts, never times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { eventually } from '../helpers/eventually.ts'
import { calledWith, callingReceiver, gateCalls, ONE_AT_A_TIME, triggerRuns } from '../helpers/flow.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive } from '../helpers/workflows.ts'

for (const kind of storeKinds()) {
  describe(`flow control: workflows of one organization take turns (${kind})`, () => {
    let t: TestSystem
    let receiver: Receiver
    beforeAll(async () => {
      receiver = startReceiver()
      t = await openTestSystem(kind, ONE_AT_A_TIME)
    })
    afterAll(async () => {
      await t.close()
      await receiver.stop()
    })

    const calling = (name: string) => callingReceiver(receiver, `w=${name}`)
    const trigger = (secret: string, n: number) => triggerRuns(t, secret, n)
    const called = () => calledWith(receiver, 'w')

    it("starts one workflow's 10 runs before another's 300, queued first, have moved by 11", async () => {
      const open = gateCalls(receiver)
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
