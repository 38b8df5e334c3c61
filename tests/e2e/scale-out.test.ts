/**
 * Scaled out: one API process and two workers on Postgres and NATS, as real processes. A worker
 * killed with kill -9, NATS restarted, the API restarted — mid-load; every accepted run ends
 * exactly once, and no node's side effect repeats except as the same attempt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { eventually } from '../helpers/eventually.ts'
import { api, startNats, startServer, startWorker } from '../helpers/process.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { scaledOut } from '../helpers/scaled-out.ts'
import { TEST_DATABASE_URL, TEST_NATS_URL, warnSkipped } from '../helpers/services.ts'
import { queryDatabase } from '../helpers/stores.ts'

const KEY = 'svcsk_scale_out_bootstrap_key_0123456789abcdef'
const enabled = Boolean(TEST_DATABASE_URL && TEST_NATS_URL)
if (!enabled)
  warnSkipped(
    'the scale-out tests (API and workers on Postgres and NATS)',
    TEST_DATABASE_URL ? 'AUTOMATON_TEST_NATS_URL' : 'AUTOMATON_TEST_DATABASE_URL',
  )

describe.skipIf(!enabled)('scaled out on Postgres and NATS', () => {
  let receiver: Receiver
  const cluster = scaledOut(KEY, 2, () => ({
    AUTOMATON_PG_POOL_SIZE: '6',
    AUTOMATON_LOG_LEVEL: 'info',
  }))

  beforeAll(() => {
    receiver = startReceiver()
    // A hook endpoint that takes a moment to answer, as a real one does (pacing, not a wait to assert on).
    receiver.respond(async () => {
      await Bun.sleep(10)
      return Response.json({ ok: true })
    })
  })

  afterAll(async () => {
    await receiver.stop()
  })

  const workflow = async (name: string) => {
    const created = await api(cluster.api.url, 'POST', '/v1/workflows', KEY, {
      name,
      definition: {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'manual', children: ['call'] },
          call: { type: 'http-request', payload: { url: `${receiver.url}/${name}/{{$run.id}}` }, children: ['done'] },
          done: { type: 'log', payload: { message: 'done {{$trigger.body.i}}' } },
        },
      },
    })
    expect(created.status).toBe(200)
    return (await api(cluster.api.url, 'POST', `/v1/workflows/${created.body.data.id}/publish`, KEY)).body.data as {
      id: string
      triggerSecret: string
    }
  }

  /** Fires webhooks with some concurrency; returns the run ids of the accepted ones. */
  async function fire(secret: string, count: number, during?: { at: number; action: () => Promise<void> }) {
    const accepted: string[] = []
    let next = 0
    const worker = async () => {
      while (next < count) {
        const i = next++
        if (during && i === during.at) await during.action()
        // Retried for up to ten seconds, as a client would; a request never accepted is missing
        // from `accepted`, and the tests require every request to have been accepted.
        for (let attempt = 0; attempt < 100; attempt++) {
          try {
            const r = await fetch(`${cluster.api.url}/v1/webhooks/${secret}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ i }),
            })
            if (r.status === 200) {
              accepted.push(((await r.json()) as { data: { runIds: string[] } }).data.runIds[0])
              break
            }
          } catch {
            // The API is restarting: try again, as a client would.
          }
          await Bun.sleep(100)
        }
      }
    }
    await Promise.all(Array.from({ length: 24 }, worker))
    return accepted
  }

  async function allFinished(workflowId: string, expected: number, timeoutMs = 90_000) {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const rows = await queryDatabase<{ status: string; n: number }>(
        cluster.env,
        'SELECT status, COUNT(*) AS n FROM runs WHERE workflow_id = $1 GROUP BY status',
        [workflowId],
      )
      const counts = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]))
      if ((counts.success ?? 0) >= expected && !counts.running && !counts.waiting) return counts
      if (Date.now() > deadline) throw new Error(`runs did not finish: ${JSON.stringify(counts)}`)
      await Bun.sleep(200)
    }
  }

  async function exactlyOnce(workflowId: string, runIds: string[]) {
    const terminal = await queryDatabase<{ run_id: string; n: number }>(
      cluster.env,
      "SELECT run_id, COUNT(*) AS n FROM events WHERE workflow_id = $1 AND type IN ('run.succeeded', 'run.failed', 'run.partial', 'run.cancelled') GROUP BY run_id",
      [workflowId],
    )
    const ended = new Map(terminal.map((r) => [r.run_id, Number(r.n)]))
    for (const id of runIds) expect(ended.get(id)).toBe(1)
    const failed = await queryDatabase<{ n: number }>(
      cluster.env,
      "SELECT COUNT(*) AS n FROM runs WHERE workflow_id = $1 AND status <> 'success'",
      [workflowId],
    )
    expect(Number(failed[0].n)).toBe(0)
    for (const id of runIds) {
      const calls = receiver.requests.filter((r) => r.path.endsWith(`/${id}`))
      expect(calls.length).toBeGreaterThanOrEqual(1)
      expect(new Set(calls.map((c) => c.headers['idempotency-key'])).size).toBe(1)
    }
  }

  it('runs 1,000 runs across two workers, one killed with kill -9 midway', async () => {
    const w = await workflow('kill')
    const accepted = await fire(w.triggerSecret, 1000, {
      at: 400,
      action: async () => {
        await cluster.workers[0].stop('SIGKILL')
      },
    })
    expect(accepted).toHaveLength(1000)
    await allFinished(w.id, 1000)
    await exactlyOnce(w.id, accepted)
    const owners = await queryDatabase<{ owner: string | null }>(
      cluster.env,
      'SELECT DISTINCT owner FROM runs WHERE workflow_id = $1',
      [w.id],
    )
    expect(owners).toEqual([{ owner: null }])
    cluster.workers[0] = await startWorker(cluster.env)
  }, 120_000)

  it('loses no run when NATS restarts mid-load', async () => {
    const w = await workflow('nats')
    const accepted = await fire(w.triggerSecret, 600, {
      at: 200,
      action: async () => {
        await cluster.nats.stop()
        // The outage lasts half a second of load (pacing the fault, not a wait to assert on).
        await Bun.sleep(500)
        cluster.nats = await startNats(cluster.natsDir, cluster.nats.port)
      },
    })
    // Admission does not need NATS: every request is accepted, before, during and after.
    expect(accepted).toHaveLength(600)
    await allFinished(w.id, accepted.length)
    await exactlyOnce(w.id, accepted)
  }, 120_000)

  it('loses no accepted run when the API process restarts mid-load', async () => {
    const w = await workflow('api')
    const accepted = await fire(w.triggerSecret, 600, {
      at: 200,
      action: async () => {
        await cluster.api.stop('SIGKILL')
        cluster.api = await startServer({ env: cluster.env })
      },
    })
    // Retried while the API restarts, every request ends accepted (one answered just before the
    // kill may have been stored twice: that is the client's retry, not a lost or doubled run).
    expect(accepted).toHaveLength(600)
    const stored = await queryDatabase<{ n: number }>(
      cluster.env,
      'SELECT COUNT(*) AS n FROM runs WHERE workflow_id = $1',
      [w.id],
    )
    expect(Number(stored[0].n)).toBeGreaterThanOrEqual(accepted.length)
    await allFinished(w.id, Number(stored[0].n))
    await exactlyOnce(w.id, accepted)
  }, 120_000)

  it("fires each durable timer once with two workers, streams a worker's run through the API, and delivers its hooks", async () => {
    const hook = await api(cluster.api.url, 'POST', '/v1/execution-webhooks', KEY, {
      name: 'scale',
      url: `${receiver.url}/hooks`,
      subscribedEventTypes: ['run.started', 'run.succeeded'],
    })
    expect(hook.status).toBe(200)
    const created = await api(cluster.api.url, 'POST', '/v1/workflows', KEY, {
      definition: {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'manual', children: ['pause'] },
          pause: { type: 'delay', payload: { delayMs: 500 }, children: ['after'] },
          after: { type: 'log', payload: { message: 'x' } },
        },
      },
    })
    const w = (await api(cluster.api.url, 'POST', `/v1/workflows/${created.body.data.id}/publish`, KEY)).body.data
    const stream = await fetch(`${cluster.api.url}/v1/workflows/${w.id}/runs/stream`, {
      headers: { authorization: `Bearer ${KEY}` },
    })
    const reader = stream.body!.getReader()
    let text = ''
    const reading = (async () => {
      const decoder = new TextDecoder()
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        text += decoder.decode(value)
        if ((text.match(/event: run\.succeeded/g) ?? []).length >= 100) return
      }
    })()
    const accepted = await fire(w.triggerSecret, 100)
    await allFinished(w.id, 100, 30_000)
    const resumed = await queryDatabase<{ run_id: string; n: number }>(
      cluster.env,
      "SELECT run_id, COUNT(*) AS n FROM events WHERE workflow_id = $1 AND type = 'run.resumed' GROUP BY run_id",
      [w.id],
    )
    expect(resumed).toHaveLength(100)
    expect(resumed.every((r) => Number(r.n) === 1)).toBe(true)
    // The stream ends its reading at the 100th run.succeeded; the bound only stops a stream that
    // missed some, which the assertions below then name.
    await Promise.race([reading, Bun.sleep(10_000)])
    await reader.cancel().catch(() => {})
    const missing = accepted.filter(
      (id) =>
        !text.includes(`"runId":"${id}"`) ||
        !new RegExp(`event: run\\.succeeded\\ndata: [^\\n]*"runId":"${id}"`).test(text),
    )
    if (missing.length > 0) {
      const rows = await queryDatabase<{ id: number; run_id: string; type: string }>(
        cluster.env,
        "SELECT id, run_id, type FROM events WHERE workflow_id = $1 AND type = 'run.succeeded' ORDER BY id",
        [w.id],
      )
      const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))
      console.error(
        'stream missed',
        missing.length,
        'runs; their run.succeeded ids',
        rows.filter((r) => missing.includes(r.run_id)).map((r) => r.id),
        'last id streamed',
        Math.max(...ids),
        'ids streamed',
        ids.length,
      )
    }
    for (const id of accepted) expect(text).toContain(`"runId":"${id}"`)
    expect((text.match(/event: run\.succeeded/g) ?? []).length).toBe(100)

    // run.started is recorded by the API process, run.succeeded by the workers: both reach the hook, once each.
    const hooked = () => receiver.requests.filter((r) => r.path === '/hooks')
    await eventually(() => hooked().length >= 200, 'both hooks of every run', 20_000)
    const bodies = hooked().map((r) => JSON.parse(r.body) as { type: string; data: { runId: string } })
    for (const type of ['run.started', 'run.succeeded']) {
      expect(
        bodies
          .filter((b) => b.type === type)
          .map((b) => b.data.runId)
          .sort(),
      ).toEqual([...accepted].sort())
    }
    expect(new Set(hooked().map((r) => r.headers['webhook-id'])).size).toBe(200)
  }, 60_000)
})
