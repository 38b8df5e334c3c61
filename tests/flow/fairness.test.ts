/**
 * Fairness between organizations among runs waiting to start: with one organization holding 2,000
 * queued runs, another's 10 all start before the first's queue has moved by 200; and an operator's
 * fair share weights the turns. One run executes at a time, held in its HTTP call until the test
 * opens the gate; the receiver records the order the runs call in. The test counts, never times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { fairShares } from '../../core/store/flow-control.ts'
import { createSkewedClock } from '../helpers/clock.ts'
import { eventually } from '../helpers/eventually.ts'
import { calledWith, callingReceiver, gateCalls, ONE_AT_A_TIME, triggerRuns } from '../helpers/flow.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive } from '../helpers/workflows.ts'

for (const kind of storeKinds()) {
  describe(`flow control: fairness between organizations (${kind})`, () => {
    const clock = createSkewedClock()
    let t: TestSystem
    let receiver: Receiver
    let open: () => void = () => {}
    beforeAll(async () => {
      receiver = startReceiver()
      t = await openTestSystem(kind, ONE_AT_A_TIME, { clock })
    })
    afterAll(async () => {
      await t.close()
      await receiver.stop()
    })

    /** Every call waits for the gate; the receiver keeps the order of arrival. */
    function holdCalls() {
      receiver.requests.length = 0
      open = gateCalls(receiver)
    }
    const calling = (org: string) => callingReceiver(receiver, `org=${org}`)
    const trigger = (secret: string, n: number) => triggerRuns(t, secret, n)
    const orgsCalled = () => calledWith(receiver, 'org')

    it('starts 10 runs of one organization before 200 of the 2,000 another queued first', async () => {
      holdCalls()
      const b = await t.newOrganization('fair-b')
      const wa = await createLive(t, { definition: calling('a') })
      const wb = await createLive(t, { definition: calling('b') }, b.key)
      await trigger(wa.triggerSecret, 2000)
      await eventually(() => receiver.requests.length === 1, 'the one slot to be taken')
      await trigger(wb.triggerSecret, 10)
      open()
      await eventually(() => orgsCalled().filter((o) => o === 'b').length === 10, "b's ten runs to start", 60_000)
      const order = orgsCalled()
      const aBeforeLastB = order.slice(0, order.lastIndexOf('b')).filter((o) => o === 'a').length
      expect(aBeforeLastB).toBeLessThan(200)
      // Turn by turn: one run of each while both wait.
      expect(aBeforeLastB).toBeLessThanOrEqual(11)
    }, 120_000)

    it('gives an organization of fair share 3 three starts for every one of the default', async () => {
      holdCalls()
      const c = await t.newOrganization('fair-c')
      const d = await t.newOrganization('fair-d')
      await t.system.store.write((tx) => fairShares.set(tx, c.orgId, 3))
      // The weights are read again once they are older than ten seconds.
      clock.skip(10_001)
      const wc = await createLive(t, { definition: calling('c') }, c.key)
      const wd = await createLive(t, { definition: calling('d') }, d.key)
      await trigger(wd.triggerSecret, 1)
      await eventually(() => receiver.requests.length === 1, 'the one slot to be taken')
      await trigger(wd.triggerSecret, 40)
      await trigger(wc.triggerSecret, 40)
      open()
      // The first test's organization still has runs queued: it takes its turns too, and is left out.
      const ofCd = () => orgsCalled().filter((o) => o === 'c' || o === 'd')
      await eventually(() => ofCd().length >= 41, 'forty more starts', 60_000)
      const next = ofCd().slice(1, 41)
      const ofC = next.filter((o) => o === 'c').length
      expect(ofC).toBeGreaterThanOrEqual(28)
      expect(ofC).toBeLessThanOrEqual(31)
      await eventually(() => ofCd().length === 81, 'every run to start', 60_000)
    }, 120_000)
  })
}
