/**
 * Flow control's priority never starves a run, and holds for the runs a rule lets go. One run
 * executes at a time, held in its HTTP call until the test lets it answer; the receiver records
 * the order the runs call in. The clock is moved by the test (every waiting run gains one step of
 * priority per second): the test counts starts, it never times them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createSkewedClock } from '../helpers/clock.ts'
import { eventually } from '../helpers/eventually.ts'
import { calledWith, callingReceiver, ONE_AT_A_TIME } from '../helpers/flow.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, waitForRun } from '../helpers/workflows.ts'

for (const kind of storeKinds()) {
  describe(`flow control: priority without starvation (${kind})`, () => {
    const clock = createSkewedClock()
    let t: TestSystem
    let receiver: Receiver
    /** The calls waiting for their answer, first come first: answering one ends its run. */
    const calls: Array<() => void> = []
    beforeAll(async () => {
      receiver = startReceiver()
      t = await openTestSystem(kind, ONE_AT_A_TIME, { clock })
    })
    afterAll(async () => {
      await t.close()
      await receiver.stop()
    })

    /** Every call waits until the test answers it. */
    function holdCalls() {
      receiver.requests.length = 0
      receiver.respond(() => new Promise<Response>((resolve) => calls.push(() => resolve(Response.json({ ok: true })))))
    }
    /** Answers the calls still held, and every later one at once. */
    function answerAll() {
      receiver.respond(() => Response.json({ ok: true }))
      for (const answer of calls.splice(0)) answer()
    }
    /** Answers the held calls one by one, each once the next run has called, until `starts` have. */
    async function answerInTurn(starts: number) {
      for (let started = 1; started < starts; started++) {
        calls.shift()!()
        await eventually(() => called().length === started + 1, `start ${started + 1}`)
      }
    }
    /** Waits until none of the runs `ids` waits any more. */
    const letGo = (ids: readonly string[], what: string) =>
      eventually(async () => {
        for (const id of ids) if ((await t.call('GET', `/v1/runs/${id}`)).body.data.status === 'waiting') return false
        return true
      }, what)
    const called = () => calledWith(receiver, 'n')
    const calling = (flowControl: Record<string, unknown>) => ({
      definition: callingReceiver(receiver, 'n={{root.result.body.n}}'),
      flowControl: { priority: '{{root.result.body.p}}', ...flowControl },
    })
    const hook = async (secret: string, n: string, p: number): Promise<string> => {
      const r = await t.call('POST', `/v1/webhooks/${secret}`, { key: null, body: { n, p } })
      expect(r.status).toBe(200)
      return r.body.data.runIds[0]
    }

    /**
     * A run of priority −100 waits while a run of priority 100 arrives every 25 s (of the test's
     * clock) and one run ends: each newcomer ranks 25 steps worse than the one before, so the
     * eighth, 200 s after the low run came, is the first it ranks before.
     */
    async function streamAgainstLowRun(flowControl: Record<string, unknown>) {
      holdCalls()
      const w = await createLive(t, calling(flowControl))
      const ids = [await hook(w.triggerSecret, 'first', 100)]
      await eventually(() => called().length === 1, 'the first run to call')
      ids.push(await hook(w.triggerSecret, 'low', -100))
      let highsStarted = 0
      for (let k = 1; k <= 20 && !called().includes('low'); k++) {
        clock.skip(25_000)
        ids.push(await hook(w.triggerSecret, `high${k}`, 100))
        calls.shift()!()
        await eventually(() => called().length === k + 1, `start ${k + 1}`)
        if (called()[k] !== 'low') highsStarted++
      }
      answerAll()
      for (const id of ids) expect((await waitForRun(t, id)).status).toBe('success')
      return highsStarted
    }

    it('starts a low-priority run within 200 s of aging under a stream of high-priority runs', async () => {
      expect(await streamAgainstLowRun({})).toBe(7)
    }, 60_000)

    it('ages the runs a concurrency limit holds alike: the stream does not starve its low run', async () => {
      expect(await streamAgainstLowRun({ concurrency: { limit: 1 } })).toBe(7)
    }, 60_000)

    it('starts the runs a concurrency limit holds by priority', async () => {
      holdCalls()
      const w = await createLive(t, calling({ concurrency: { limit: 1 } }))
      const ids = [await hook(w.triggerSecret, 'first', 0)]
      await eventually(() => called().length === 1, 'the first run to call')
      for (const p of [-5, 0, 50, 10, 100]) ids.push(await hook(w.triggerSecret, `p${p}`, p))
      for (const id of ids.slice(1))
        expect((await t.call('GET', `/v1/runs/${id}`)).body.data.waitingFor).toEqual({ reason: 'concurrency', key: '' })
      await answerInTurn(ids.length)
      answerAll()
      for (const id of ids) expect((await waitForRun(t, id)).status).toBe('success')
      expect(called()).toEqual(['first', 'p100', 'p50', 'p10', 'p0', 'p-5'])
    }, 60_000)

    it('starts the runs a throttle lets go at once by priority, aged since their admission', async () => {
      holdCalls()
      const w = await createLive(t, calling({ throttle: { limit: 5, periodMs: 60_000 } }))
      // The burst of five starts (one calls, four wait for the executor's one slot).
      const ids: string[] = []
      for (let i = 0; i < 5; i++) ids.push(await hook(w.triggerSecret, `a${i}`, 0))
      await eventually(() => called().length === 1, 'the first run to call')
      const held: string[] = []
      for (const p of [-5, 0, 50, 10, 100]) held.push(await hook(w.triggerSecret, `p${p}`, p))
      for (const id of held) expect((await t.call('GET', `/v1/runs/${id}`)).body.data.status).toBe('waiting')
      // A period refills five starts: the five held runs are let go together.
      clock.skip(60_000)
      await letGo(held, 'the held runs to be let go')
      await answerInTurn(10)
      answerAll()
      for (const id of [...ids, ...held]) expect((await waitForRun(t, id)).status).toBe('success')
      // Priority 10 outranks the four queued a moment before it; priority 0 comes after them.
      expect(called()).toEqual(['a0', 'p100', 'p50', 'p10', 'a1', 'a2', 'a3', 'a4', 'p0', 'p-5'])
    }, 60_000)

    it('starts debounced runs let go at once by the priority of their latest event', async () => {
      holdCalls()
      const blocker = await createLive(t, calling({}))
      const ids = [await hook(blocker.triggerSecret, 'blocker', 0)]
      await eventually(() => called().length === 1, 'the blocker to call')
      const w = await createLive(t, calling({ debounce: { key: '{{root.result.body.n}}', periodMs: 10_000 } }))
      const events: [string, number][] = [
        ['k1', 0],
        ['k2', 100],
        ['k3', 10],
        ['k1', 50],
        ['k2', -10],
      ]
      for (const [n, p] of events) ids.push(await hook(w.triggerSecret, n, p))
      const pending = [...new Set(ids.slice(1))]
      expect(pending).toHaveLength(3)
      clock.skip(10_001)
      await letGo(pending, 'the pending runs to be let go')
      await answerInTurn(4)
      answerAll()
      for (const id of [ids[0], ...pending]) expect((await waitForRun(t, id)).status).toBe('success')
      expect(called()).toEqual(['blocker', 'k1', 'k3', 'k2'])
    }, 60_000)
  })
}
