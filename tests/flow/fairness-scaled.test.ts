/**
 * Fairness between organizations across processes (Postgres and NATS, an API process and two
 * workers): the API process puts at most AUTOMATON_FAIR_SHARE_LINE runs of an organization in the
 * work queue and holds the rest in the store (waitingFor fairness); the workers release them as
 * that organization's runs start. With A holding 2,000 queued runs, B's 10 all start before A's
 * queue has moved by 200. Each worker executes one run at a time, held in its HTTP call until the
 * test opens the gate; the receiver records the order of the calls. The test counts, never times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { eventually } from '../helpers/eventually.ts'
import { calledWith, callingReceiver, gateCalls, openScaled, scaledTestsRun, triggerRuns } from '../helpers/flow.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import type { TestSystem } from '../helpers/system.ts'
import { createLive } from '../helpers/workflows.ts'

const scaled = scaledTestsRun('fairness across processes')

describe.skipIf(!scaled)('flow control: fairness across processes (Postgres and NATS, two workers)', () => {
  let api: TestSystem
  let workers: TestSystem[] = []
  let receiver: Receiver
  let open: () => void = () => {}
  beforeAll(async () => {
    receiver = startReceiver()
    open = gateCalls(receiver)
    ;({ api, workers } = await openScaled('FAIRNESS', {
      AUTOMATON_FAIR_SHARE_LINE: '20',
      AUTOMATON_WORKER_CONCURRENCY: '1',
    }))
  })
  afterAll(async () => {
    open()
    for (const w of workers) await w.stop()
    await api?.close()
    await receiver.stop()
  })

  const calling = (org: string) => callingReceiver(receiver, `org=${org}`)
  const trigger = (secret: string, n: number) => triggerRuns(api, secret, n)
  const orgsCalled = () => calledWith(receiver, 'org')

  it('starts 10 runs of one organization before 200 of the 2,000 another queued first, whichever worker takes them', async () => {
    const b = await api.newOrganization('fair-b')
    const wa = await createLive(api, { definition: calling('a') })
    const wb = await createLive(api, { definition: calling('b') }, b.key)
    await trigger(wa.triggerSecret, 2000)
    await eventually(() => receiver.requests.length >= 2, 'both workers to be busy')
    // Beyond A's line, its runs wait in the store for their turn.
    const counts = (await api.call('GET', `/v1/runs/status-counts?workflowId=${wa.id}`)).body.data.counts
    expect(counts.waiting).toBeGreaterThanOrEqual(1900)
    const held = (await api.call('GET', `/v1/workflows/${wa.id}/runs?status=waiting&limit=1`)).body.data.items[0]
    expect(held.waitingFor).toEqual({ reason: 'fairness', key: '' })
    await trigger(wb.triggerSecret, 10)
    open()
    await eventually(() => orgsCalled().filter((o) => o === 'b').length === 10, "b's ten runs to start", 60_000)
    const order = orgsCalled()
    const aBeforeLastB = order.slice(0, order.lastIndexOf('b')).filter((o) => o === 'a').length
    expect(aBeforeLastB).toBeLessThan(200)
    // A's held runs are released as its line moves: they keep starting after B's.
    await eventually(() => orgsCalled().filter((o) => o === 'a').length >= 300, "a's runs to go on", 60_000)
  }, 120_000)
})
