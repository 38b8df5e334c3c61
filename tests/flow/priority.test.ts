/** Flow control's priority: among runs waiting to start, the higher starts first. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { eventually } from '../helpers/eventually.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'

for (const kind of storeKinds()) {
  describe(`flow control: priority (${kind})`, () => {
    let t: TestSystem
    let receiver: Receiver
    beforeAll(async () => {
      receiver = startReceiver()
      // One run at a time, so that the others wait to start.
      t = await openTestSystem(kind, {
        AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
        AUTOMATON_WORKER_CONCURRENCY: '1',
      })
    })
    afterAll(async () => {
      await t.close()
      await receiver.stop()
    })

    it('starts the waiting runs by their priority, from the trigger data', async () => {
      let open!: () => void
      const gate = new Promise<void>((resolve) => (open = resolve))
      receiver.respond(async () => {
        await gate
        return Response.json({ ok: true })
      })
      const call = { type: 'http-request', payload: { url: `${receiver.url}/call?p={{root.result.body.p}}` } }
      const w = await createLive(t, {
        definition: linear({ call }, ['call']),
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
