/**
 * GET /metrics: the Prometheus text of the process, parsed, with the deltas that runs, node
 * executions, HTTP requests and streams leave; bounded labels; the optional bearer token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { eventually } from '../helpers/eventually.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, waitForRun } from '../helpers/workflows.ts'

/** Samples of the exposition: `name{labels} value` → value, keyed by the whole series. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue
    const at = line.lastIndexOf(' ')
    out.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return out
}

for (const kind of storeKinds())
  describe(`metrics (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t.close())

    const scrape = async (headers: Record<string, string> = {}) => {
      const r = await t.call('GET', '/metrics', { key: null, headers })
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toContain('text/plain')
      return parse(r.body as string)
    }
    const value = (m: Map<string, number>, series: string) => m.get(series) ?? 0

    it('counts runs started and finished, node executions by type, and their durations', async () => {
      const w = await createLive(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['say'] },
            say: { type: 'log', payload: { message: 'hi' }, children: ['boom'] },
            boom: {
              type: 'code-transform',
              payload: { code: 'function transform(i) { throw new Error("no") }', input: {} },
            },
          },
        },
      })
      const ok = await createLive(t, {
        definition: {
          triggerNodeIds: ['root'],
          nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'ok' } } },
        },
      })
      const before = await scrape()
      const runs = [
        ...(
          await Promise.all(
            [1, 2, 3].map(() => t.call('POST', `/v1/webhooks/${ok.triggerSecret}`, { key: null, body: {} })),
          )
        ).map((r) => r.body.data.runIds[0]),
        (await t.call('POST', `/v1/workflows/${w.id}/run`, { body: {} })).body.data.runId,
      ]
      for (const id of runs) await waitForRun(t, id)
      const after = await scrape()
      const delta = (series: string) => value(after, series) - value(before, series)
      expect(delta('automaton_runs_started_total{trigger_type="manual",triggered_by="webhook"}')).toBe(3)
      expect(delta('automaton_runs_started_total{trigger_type="manual",triggered_by="key"}')).toBe(1)
      expect(delta('automaton_runs_finished_total{status="success"}')).toBe(3)
      expect(delta('automaton_runs_finished_total{status="failure"}')).toBe(1)
      expect(delta('automaton_run_duration_seconds_count{status="success"}')).toBe(3)
      expect(delta('automaton_node_duration_seconds_count{node_type="log",outcome="succeeded"}')).toBe(4)
      expect(delta('automaton_node_duration_seconds_count{node_type="code-transform",outcome="failed"}')).toBe(1)
      // Histograms reach an hour: a run waiting on a person still lands in a bucket.
      expect([...after.keys()].some((k) => k.startsWith('automaton_run_duration_seconds_bucket{le="3600"'))).toBe(true)
      expect(delta('automaton_journal_events_per_write_count')).toBeGreaterThan(0)
      // Requests by route pattern, never by id.
      expect(
        delta('automaton_http_requests_total{method="POST",route="/v1/webhooks/:workflowSecret",status="200"}'),
      ).toBe(3)
      expect(delta(`automaton_http_requests_total{method="POST",route="/v1/workflows/:id/run",status="200"}`)).toBe(1)
      const series = [...after.keys()].join('\n')
      for (const id of [...runs, w.id, ok.id, ok.triggerSecret]) expect(series).not.toContain(id)
      expect(value(after, 'automaton_admission_backlog')).toBe(0)
      // The runs this process keeps going at once: its concurrency (256), or down to an eighth of it while its loop lags.
      expect(value(after, 'automaton_executor_concurrency')).toBeGreaterThanOrEqual(32)
      expect(value(after, 'automaton_executor_concurrency')).toBeLessThanOrEqual(256)
      expect(value(after, 'automaton_process_resident_memory_bytes')).toBeGreaterThan(0)
    })

    it('counts open streams', async () => {
      const before = value(await scrape(), 'automaton_stream_subscribers')
      const response = await t.system.app.handle(
        new Request('http://localhost/v1/activity/stream', { headers: { authorization: `Bearer ${t.key}` } }),
      )
      const reader = response.body!.getReader()
      await reader.read()
      expect(value(await scrape(), 'automaton_stream_subscribers')).toBe(before + 1)
      await reader.cancel()
      await eventually(
        async () => value(await scrape(), 'automaton_stream_subscribers') === before,
        'the closed stream to be uncounted',
      )
    })

    it('counts a request under the status its client received, not the one the validator raised', async () => {
      const series = (status: string) =>
        `automaton_http_requests_total{method="POST",route="/v1/api-keys",status="${status}"}`
      const counted = (m: Map<string, number>) =>
        ['400', '422'].reduce((sum, status) => sum + value(m, series(status)), 0)
      const before = await scrape()
      const r = await t.call('POST', '/v1/api-keys', { body: { name: 42 } })
      expect(r.status).toBe(400)
      // The request is counted once its answer is out: wait for it to be counted.
      let after = await scrape()
      await eventually(async () => counted((after = await scrape())) !== counted(before), 'the request to be counted')
      const delta = (status: string) => value(after, series(status)) - value(before, series(status))
      expect({ counted400: delta('400'), counted422: delta('422') }).toEqual({ counted400: 1, counted422: 0 })
    })

    it('needs the bearer token when the operator sets one', async () => {
      const guarded = await t.openSibling({ AUTOMATON_METRICS_TOKEN: 'scrape-secret-123' })
      try {
        expect((await guarded.call('GET', '/metrics', { key: null })).status).toBe(401)
        expect(
          (await guarded.call('GET', '/metrics', { key: null, headers: { authorization: 'Bearer wrong' } })).status,
        ).toBe(401)
        const ok = await guarded.call('GET', '/metrics', {
          key: null,
          headers: { authorization: 'Bearer scrape-secret-123' },
        })
        expect(ok.status).toBe(200)
        expect(ok.body).toContain('# TYPE automaton_runs_started_total counter')
      } finally {
        await guarded.stop()
      }
    })
  })
