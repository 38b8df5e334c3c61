/** Server-sent event streams, in-process, on both stores and on the NATS bus. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { TERMINAL, three } from '../helpers/run-streams.ts'
import { storeKinds, TEST_DATABASE_URL, TEST_NATS_URL } from '../helpers/services.ts'
import { readSse } from '../helpers/sse.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, createWorkflow, linear, waitForRun } from '../helpers/workflows.ts'

const variants: Array<{ name: string; kind: 'sqlite' | 'postgres'; env: Record<string, string> }> = storeKinds().map(
  (kind) => ({ name: kind, kind, env: {} }),
)
if (TEST_DATABASE_URL && TEST_NATS_URL) {
  variants.push({
    name: 'postgres + NATS',
    kind: 'postgres',
    env: { AUTOMATON_NATS_URL: TEST_NATS_URL, AUTOMATON_NATS_STREAM: `T_STREAMS_${Date.now()}` },
  })
}

for (const variant of variants) {
  describe(`event streams (${variant.name})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(
        variant.kind,
        { AUTOMATON_SSE_HEARTBEAT_MS: '100', ...variant.env },
        { role: 'embedded' },
      )
    })
    afterAll(() => t.close())

    const open = (path: string, headers: Record<string, string> = {}, key?: string) =>
      t.system.app.handle(
        new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${key ?? t.key}`, ...headers } }),
      )

    it('follows a run from run.started to its end, numbered by the journal, and then closes', async () => {
      const w = await createWorkflow(t, { definition: three })
      const runId = (await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: { n: 21 } } })).body.data
        .runId
      const response = await open(`/v1/runs/${runId}/stream`)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toContain('text/event-stream')
      const sse = readSse(response)
      const events = await sse.until((e) => TERMINAL.includes(e.event))
      expect(await sse.next()).toBeNull()
      expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i + 1))
      expect(events[0].event).toBe('run.started')
      expect(events.at(-1)!.event).toBe('run.succeeded')
      expect(events.filter((e) => e.event === 'node.succeeded').map((e) => e.data.nodeId)).toEqual([
        'root',
        'a',
        'b',
        'c',
      ])
      for (const e of events) {
        expect(e.data.runId).toBe(runId)
        expect(e.data.data.input).toBeUndefined()
        expect(e.data.data.result).toBeUndefined()
      }
    })

    it('gives node inputs and results on the execution stream', async () => {
      const w = await createWorkflow(t, { definition: three })
      const runId = (await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: { n: 4 } } })).body.data.runId
      const events = await readSse(await open(`/v1/executions/${runId}/stream`)).until((e) =>
        TERMINAL.includes(e.event),
      )
      const b = events.find((e) => e.event === 'node.succeeded' && e.data.nodeId === 'b')!
      expect(b.data.data.result).toEqual({ output: 8 })
      expect(b.data.data.input.input).toBe(4)
    })

    it('resumes after Last-Event-ID with no gap and no duplicate', async () => {
      const w = await createWorkflow(t, {
        definition: linear(
          { pause: { type: 'delay', payload: { delayMs: 300 } }, after: { type: 'log', payload: { message: 'x' } } },
          ['pause', 'after'],
        ),
      })
      const runId = (await t.call('POST', `/v1/workflows/${w.id}/run`, { body: {} })).body.data.runId
      const first = readSse(await open(`/v1/runs/${runId}/stream`))
      const seen = [await first.next(), await first.next(), await first.next()]
      await first.cancel()
      const last = seen.at(-1)!.id
      const rest = await readSse(await open(`/v1/runs/${runId}/stream`, { 'last-event-id': last })).until((e) =>
        TERMINAL.includes(e.event),
      )
      const all = [...seen, ...rest].map((e) => Number(e!.id))
      expect(all).toEqual(all.map((_, i) => i + 1))
      expect(rest.at(-1)!.event).toBe('run.succeeded')
      const whole = await readSse(await open(`/v1/runs/${runId}/stream?lastEventId=0`)).until((e) =>
        TERMINAL.includes(e.event),
      )
      expect(whole.map((e) => Number(e.id))).toEqual(all)
    })

    it('lets a client subscribe with its own run id before the run starts', async () => {
      const w = await createWorkflow(t, { definition: three })
      const runId = `run_01EARLY${Date.now()}${Math.floor(Math.random() * 1000)}`.slice(0, 30)
      const sse = readSse(await open(`/v1/runs/${runId}/stream`))
      const started = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { runId, payload: { n: 1 } } })
      expect(started.body.data.runId).toBe(runId)
      const events = await sse.until((e) => TERMINAL.includes(e.event))
      expect(events[0]).toMatchObject({ id: '1', event: 'run.started' })
    })

    it('sends heartbeats while nothing happens, and events after them', async () => {
      const sse = readSse(await open('/v1/activity/stream'))
      await sse.comment('heartbeat')
      await sse.comment('heartbeat')
      const workflowId = (await createWorkflow(t, { definition: three })).id
      const e = await sse.until((x) => x.event === 'workflow.created')
      expect(e.at(-1)!.data.workflowId).toBe(workflowId)
      await sse.cancel()
    })

    it("follows the organization's activity and resumes it by event id", async () => {
      const sse = readSse(await open('/v1/activity/stream'))
      const w = await createLive(t, { definition: three })
      const runId = (await t.call('POST', `/v1/webhooks/${w.triggerSecret}`, { key: null, body: { n: 2 } })).body.data
        .runIds[0]
      const events = await sse.until((e) => e.event === 'run.succeeded' && e.data.runId === runId)
      await sse.cancel()
      expect(events.map((e) => e.event)).toContain('workflow.published')
      const ids = events.map((e) => Number(e.id))
      expect([...ids].sort((a, b) => a - b)).toEqual(ids)
      const cut = events.findIndex((e) => e.event === 'run.started')
      const resumed = await readSse(await open('/v1/activity/stream', { 'last-event-id': events[cut].id })).until(
        (e) => e.event === 'run.succeeded' && e.data.runId === runId,
      )
      expect(resumed.map((e) => e.id)).toEqual(events.slice(cut + 1).map((e) => e.id))
    })

    it("streams one workflow's runs only", async () => {
      const mine = await createLive(t, { definition: three })
      const other = await createLive(t, { definition: three })
      const sse = readSse(await open(`/v1/workflows/${mine.id}/runs/stream`))
      await t.call('POST', `/v1/webhooks/${other.triggerSecret}`, { key: null, body: { n: 1 } })
      const runId = (await t.call('POST', `/v1/webhooks/${mine.triggerSecret}`, { key: null, body: { n: 1 } })).body
        .data.runIds[0]
      const events = await sse.until((e) => e.event === 'run.succeeded')
      await sse.cancel()
      expect(events.map((e) => e.event)).toEqual(['run.started', 'run.succeeded'])
      for (const e of events) expect(e.data).toMatchObject({ workflowId: mine.id, runId })
    })

    it('checks run:stream and execution:stream, and keeps organizations apart', async () => {
      const w = await createWorkflow(t, { definition: three })
      const run = await waitForRun(
        t,
        (await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: { n: 1 } } })).body.data.runId,
      )
      const sa = (
        await t.call('POST', '/v1/service-accounts', {
          body: { name: 'watcher', permissions: ['run:read', 'run:stream'] },
        })
      ).body.data
      const watcher = (await t.call('POST', '/v1/api-keys', { body: { name: 'w', serviceAccountId: sa.id } })).body.data
        .key
      const ok = await open(`/v1/runs/${run.id}/stream`, {}, watcher)
      expect(ok.status).toBe(200)
      await ok.body?.cancel()
      expect((await open(`/v1/executions/${run.id}/stream`, {}, watcher)).status).toBe(403)
      const other = await t.newOrganization(`streams-${variant.name.replace(/\W/g, '')}`)
      expect((await open(`/v1/runs/${run.id}/stream`, {}, other.key)).status).toBe(404)
      expect((await open(`/v1/workflows/${w.id}/runs/stream`, {}, other.key)).status).toBe(404)
      const theirs = readSse(await open('/v1/activity/stream', {}, other.key))
      const ours = (await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: { n: 1 } } })).body.data.runId
      await waitForRun(t, ours)
      // The positive signal: the other organization's own workflow, created after our run ended.
      // The first event its stream shows is its own, so ours (earlier) never reached it.
      const own = await createWorkflow(t, { definition: three }, other.key)
      const first = await theirs.next(5000)
      expect(first?.data).toMatchObject({ workflowId: own.id })
      await theirs.cancel()
    })
  })
}
