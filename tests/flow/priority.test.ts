/** Flow control's priority: among runs waiting to start, the higher starts first. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { eventually } from '../helpers/eventually.ts'
import { callingReceiver, gateCalls, ONE_AT_A_TIME } from '../helpers/flow.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, waitForRun } from '../helpers/workflows.ts'

for (const kind of storeKinds()) {
  describe(`flow control: priority (${kind})`, () => {
    let t: TestSystem
    let receiver: Receiver
    beforeAll(async () => {
      receiver = startReceiver()
      // One run at a time, so that the others wait to start.
      t = await openTestSystem(kind, ONE_AT_A_TIME)
    })
    afterAll(async () => {
      await t.close()
      await receiver.stop()
    })

    it('starts the waiting runs by their priority, from the trigger data', async () => {
      const open = gateCalls(receiver)
      const w = await createLive(t, {
        definition: callingReceiver(receiver, 'p={{root.result.body.p}}'),
        flowControl: { priority: '{{root.result.body.p}}' },
      })
      const hook = (p: number) => t.call('POST', `/v1/webhooks/${w.triggerSecret}`, { key: null, body: { p } })
      const first = (await hook(0)).body.data.runIds[0]
      await eventually(() => receiver.requests.length === 1, 'the first run to call')
      const rest = []
      for (const p of [-5, 0, 50, 10, 500]) rest.push((await hook(p)).body.data.runIds[0])
      open()
      for (const id of [first, ...rest]) expect((await waitForRun(t, id)).status).toBe('success')
      // 500 is out of range: it counts as the highest, 100.
      expect(receiver.requests.map((r) => r.path.split('p=')[1])).toEqual(['0', '500', '50', '10', '0', '-5'])
      receiver.respond(() => Response.json({ ok: true }))
    })
  })
}
