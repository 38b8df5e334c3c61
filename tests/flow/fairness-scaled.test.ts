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
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { TEST_DATABASE_URL, TEST_NATS_URL, warnSkipped } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear } from '../helpers/workflows.ts'

const scaled = Boolean(TEST_DATABASE_URL && TEST_NATS_URL)
if (!scaled)
  warnSkipped(
    'fairness across processes',
    TEST_DATABASE_URL ? 'AUTOMATON_TEST_NATS_URL' : 'AUTOMATON_TEST_DATABASE_URL',
  )

describe.skipIf(!scaled)('flow control: fairness across processes (Postgres and NATS, two workers)', () => {
  let api: TestSystem
  const workers: TestSystem[] = []
  let receiver: Receiver
  let open: () => void = () => {}
  beforeAll(async () => {
    receiver = startReceiver()
    const gate = new Promise<void>((resolve) => (open = resolve))
    receiver.respond(async () => {
      await gate
      return Response.json({ ok: true })
    })
    api = await openTestSystem(
      'postgres',
      {
        AUTOMATON_NATS_URL: TEST_NATS_URL!,
        AUTOMATON_NATS_STREAM: `T_FAIRNESS_${Date.now()}`,
        AUTOMATON_FAIR_SHARE_LINE: '20',
        AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
        AUTOMATON_WORKER_CONCURRENCY: '1',
        AUTOMATON_FINISH_AT_ADMISSION: 'false',
      },
      { role: 'api' },
    )
    for (let i = 0; i < 2; i++) workers.push(await api.openSibling({}, { role: 'worker' }))
  })
  afterAll(async () => {
    open()
    for (const w of workers) await w.stop()
    await api?.close()
    await receiver.stop()
  })

  const calling = (org: string) =>
    linear({ call: { type: 'http-request', payload: { url: `${receiver.url}/call?org=${org}` } } }, ['call'])
  async function trigger(secret: string, n: number) {
    for (let i = 0; i < n; i += 50) {
      const batch = Array.from({ length: Math.min(50, n - i) }, () =>
        api.call('POST', `/v1/webhooks/${secret}`, { key: null, body: {} }),
      )
      for (const r of await Promise.all(batch)) expect(r.body.data.action).toBe('triggered')
    }
  }
  const orgsCalled = () => receiver.requests.map((r) => new URL(r.path, receiver.url).searchParams.get('org'))

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
