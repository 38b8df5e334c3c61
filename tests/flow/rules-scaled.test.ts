/**
 * Flow control's rules across processes (Postgres and NATS, an API process and two workers): the
 * limits are counted in the store, so they hold whichever worker executes a run. A receiver counts
 * the calls in flight per key; the clock is moved by the test (one clock for the three processes).
 * The tests count calls and starts, they never time them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createSkewedClock } from '../helpers/clock.ts'
import { eventually } from '../helpers/eventually.ts'
import { calledWith, callingReceiver, openScaled, scaledTestsRun } from '../helpers/flow.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import type { TestSystem } from '../helpers/system.ts'
import { createLive, waitForRun } from '../helpers/workflows.ts'

const scaled = scaledTestsRun('flow control across processes')

describe.skipIf(!scaled)('flow control across processes (Postgres and NATS, two workers)', () => {
  const clock = createSkewedClock()
  let api: TestSystem
  let workers: TestSystem[] = []
  let receiver: Receiver
  beforeAll(async () => {
    receiver = startReceiver()
    ;({ api, workers } = await openScaled('FLOW_RULES', { AUTOMATON_WORKER_CONCURRENCY: '4' }, clock))
  })
  afterAll(async () => {
    for (const w of workers) await w.stop()
    await api?.close()
    await receiver.stop()
  })

  const param = (path: string, name: string) => new URL(path, receiver.url).searchParams.get(name)
  const calling = (flowControl: Record<string, unknown>) => ({
    definition: callingReceiver(receiver, 'k={{root.result.body.k}}&n={{root.result.body.n}}'),
    flowControl,
  })
  const hook = async (secret: string, body: Record<string, unknown>) => {
    const r = await api.call('POST', `/v1/webhooks/${secret}`, { key: null, body })
    expect(r.status).toBe(200)
    return r.body.data as { action: string; runIds: string[] }
  }

  it('concurrency: never more than the limit of a key in flight, whichever worker runs it', async () => {
    const inFlight = new Map<string, number>()
    let most = 0
    let open!: () => void
    const gate = new Promise<void>((resolve) => (open = resolve))
    receiver.requests.length = 0
    receiver.respond(async (req) => {
      const key = param(req.path, 'k')!
      const now = (inFlight.get(key) ?? 0) + 1
      inFlight.set(key, now)
      most = Math.max(most, now)
      // The first calls wait until every key has its limit in flight (eight slots for six runs).
      await gate
      inFlight.set(key, (inFlight.get(key) ?? 1) - 1)
      return Response.json({ ok: true })
    })
    const w = await createLive(api, calling({ concurrency: { key: '{{root.result.body.k}}', limit: 2 } }))
    const ids: string[] = []
    for (let n = 0; n < 24; n++) ids.push(...(await hook(w.triggerSecret, { k: `c${n % 3}`, n })).runIds)
    await eventually(() => receiver.requests.length === 6, 'two runs of each key in flight')
    open()
    for (const id of ids) expect((await waitForRun(api, id, undefined, 30_000)).status).toBe('success')
    expect(receiver.requests).toHaveLength(24)
    expect(most).toBe(2)
  }, 60_000)

  it('throttle: starts per period never exceed the bucket, across the workers', async () => {
    receiver.requests.length = 0
    receiver.respond(() => Response.json({ ok: true }))
    const w = await createLive(api, calling({ throttle: { limit: 3, periodMs: 60_000 } }))
    const ids: string[] = []
    for (let n = 0; n < 8; n++) ids.push(...(await hook(w.triggerSecret, { k: 't', n })).runIds)
    await eventually(() => receiver.requests.length === 3, 'the burst of three')
    const counts = async () => (await api.call('GET', `/v1/runs/status-counts?workflowId=${w.id}`)).body.data.counts
    expect((await counts()).waiting).toBe(5)
    clock.skip(60_000)
    await eventually(() => receiver.requests.length === 6, 'three more once the bucket refilled')
    expect((await counts()).waiting).toBe(2)
    clock.skip(60_000)
    for (const id of ids) expect((await waitForRun(api, id, undefined, 30_000)).status).toBe('success')
    expect(receiver.requests).toHaveLength(8)
  }, 60_000)

  it('priority: the runs a concurrency limit holds start by priority, whichever worker takes them', async () => {
    receiver.requests.length = 0
    let open!: () => void
    const gate = new Promise<void>((resolve) => (open = resolve))
    receiver.respond(async (req) => {
      if (param(req.path, 'n') === 'first') await gate
      return Response.json({ ok: true })
    })
    const w = await createLive(api, calling({ concurrency: { limit: 1 }, priority: '{{root.result.body.p}}' }))
    const ids = (await hook(w.triggerSecret, { n: 'first', p: 0 })).runIds
    await eventually(() => receiver.requests.length === 1, 'the first run to call')
    for (const p of [-5, 0, 50, 10, 100]) ids.push(...(await hook(w.triggerSecret, { n: `p${p}`, p })).runIds)
    open()
    for (const id of ids) expect((await waitForRun(api, id, undefined, 30_000)).status).toBe('success')
    expect(calledWith(receiver, 'n')).toEqual(['first', 'p100', 'p50', 'p10', 'p0', 'p-5'])
  }, 60_000)

  it('debounce: a burst of 100 events starts one run, with the last event’s data', async () => {
    receiver.requests.length = 0
    receiver.respond(() => Response.json({ ok: true }))
    const w = await createLive(api, calling({ debounce: { periodMs: 10_000 } }))
    const answers = []
    for (let n = 0; n < 100; n++) answers.push(await hook(w.triggerSecret, { k: 'd', n }))
    const runId = answers[0].runIds[0]
    for (const a of answers) expect(a).toMatchObject({ action: 'debounced', runIds: [runId] })
    clock.skip(10_001)
    expect((await waitForRun(api, runId, undefined, 30_000)).status).toBe('success')
    expect(calledWith(receiver, 'n')).toEqual(['99'])
  }, 60_000)
})
