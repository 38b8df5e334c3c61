/** Failures: per-node retry, onError, timeouts, run retry, and the run controls they feed. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createRecordingClock } from '../helpers/clock.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, createWorkflow, linear, runAndWait, waitForRun } from '../helpers/workflows.ts'
import { defineAction, definePlugin, Type } from '../../core/plugin/sdk.ts'
import { silentLogger } from '../../core/ports/logger.ts'
import { openSystem } from '../../main.ts'

for (const kind of storeKinds()) {
  describe(`failures (${kind})`, () => {
    let t: TestSystem
    let receiver: Receiver
    const clock = createRecordingClock()
    beforeAll(async () => {
      receiver = startReceiver()
      t = await openTestSystem(
        kind,
        { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32', AUTOMATON_CONSECUTIVE_FAILURES_PAUSE: '2' },
        { clock },
      )
    })
    afterAll(async () => {
      await t.close()
      await receiver.stop()
    })

    it('retries a failing node with backoff, with a new idempotency key per attempt', async () => {
      receiver.respond((_req, i) => (i % 3 < 2 ? new Response('busy', { status: 503 }) : Response.json({ ok: true })))
      const before = receiver.requests.length
      const w = await createWorkflow(t, {
        definition: linear(
          {
            call: {
              type: 'http-request',
              payload: { url: `${receiver.url}/flaky` },
              retry: { maxAttempts: 3, backoffMs: 37 },
            },
          },
          ['call'],
        ),
      })
      const run = await runAndWait(t, w.id)
      expect(run.status).toBe('success')
      expect(run.nodes.call.attempts).toBe(3)
      const calls = receiver.requests.slice(before)
      expect(calls.map((c) => c.headers['idempotency-key'])).toEqual([1, 2, 3].map((a) => `${run.id}:call:${a}`))
      const retrying = await t.system.store.all<{ data: string }>(
        "SELECT data FROM events WHERE run_id = $1 AND type = 'node.retrying' ORDER BY seq",
        [run.id],
      )
      expect(retrying.map((e) => JSON.parse(e.data).delayMs)).toEqual([37, 74])
      // The engine waited on its clock before each attempt again: 37 ms, then twice as long.
      const first = clock.sleeps.indexOf(37)
      expect(first).toBeGreaterThanOrEqual(0)
      expect(clock.sleeps.indexOf(74, first)).toBeGreaterThan(first)
    })

    it('fails the run on a node failure, or carries on as partial with onError continue', async () => {
      const stop = await createWorkflow(t, {
        definition: linear(
          {
            boom: { type: 'code-transform', payload: { code: 'function transform() { throw new Error("kaput") }' } },
            never: { type: 'log', payload: { message: 'x' } },
          },
          ['boom', 'never'],
        ),
      })
      const failed = await runAndWait(t, stop.id)
      expect(failed.status).toBe('failure')
      expect(failed.error).toMatchObject({ nodeId: 'boom' })
      expect(failed.error.message).toContain('kaput')
      expect(failed.nodes.never.status).toBe('pending')
      const go = await createWorkflow(t, {
        definition: linear(
          {
            boom: {
              type: 'code-transform',
              payload: { code: 'function transform() { throw new Error("kaput") }' },
              onError: 'continue',
            },
            next: { type: 'log', payload: { message: 'saw {{boom.error}}' } },
          },
          ['boom', 'next'],
        ),
      })
      const partial = await runAndWait(t, go.id)
      expect(partial.status).toBe('partial')
      expect(partial.nodes.next.result.message).toContain('kaput')
    })

    it('fails a node that exceeds its timeoutMs', async () => {
      let answer!: () => void
      const late = new Promise<void>((resolve) => (answer = resolve))
      receiver.respond(async () => {
        // Answered only after the run has ended: the node cannot have waited for it.
        await late
        return Response.json({ late: true })
      })
      const w = await createWorkflow(t, {
        definition: linear(
          { slow: { type: 'http-request', payload: { url: `${receiver.url}/slow` }, timeoutMs: 200 } },
          ['slow'],
        ),
      })
      const run = await runAndWait(t, w.id)
      answer()
      expect(run.status).toBe('failure')
      expect(run.nodes.slow.error).toContain('timed out after 200 ms')
      receiver.respond(() => Response.json({ ok: true }))
    })

    it('retries a failed run as a new run that reuses the nodes that succeeded', async () => {
      let healthy = false
      receiver.respond((req) =>
        req.path === '/step2' && !healthy ? new Response('down', { status: 500 }) : Response.json({ path: req.path }),
      )
      const w = await createWorkflow(t, {
        definition: linear(
          {
            one: { type: 'http-request', payload: { url: `${receiver.url}/step1` } },
            two: { type: 'http-request', payload: { url: `${receiver.url}/step2` } },
            three: { type: 'log', payload: { message: '{{one.result.body.path}} {{two.result.body.path}}' } },
          },
          ['one', 'two', 'three'],
        ),
      })
      const failed = await runAndWait(t, w.id)
      expect(failed.status).toBe('failure')
      const stillDown = await t.call('POST', `/v1/runs/${failed.id}/retry`)
      expect(stillDown.status).toBe(200)
      expect((await waitForRun(t, stillDown.body.data.runId)).status).toBe('failure')
      healthy = true
      const before = receiver.requests.length
      const retry = await t.call('POST', `/v1/runs/${failed.id}/retry`)
      const again = await waitForRun(t, retry.body.data.runId)
      expect(again.status).toBe('success')
      expect(again.retryOf).toBe(failed.id)
      expect(again.triggeredBy).toBe('retry')
      expect(again.nodes.three.result.message).toBe('/step1 /step2')
      expect(receiver.requests.slice(before).map((r) => r.path)).toEqual(['/step2'])
      expect((await t.call('POST', `/v1/runs/${again.id}/retry`)).status).toBe(409)
    })

    it("refuses a retry of an archived workflow's run as any admission does", async () => {
      const w = await createWorkflow(t, {
        definition: linear(
          { boom: { type: 'code-transform', payload: { code: 'function transform() { throw new Error("kaput") }' } } },
          ['boom'],
        ),
      })
      const failed = await runAndWait(t, w.id)
      expect(failed.status).toBe('failure')
      await t.call('DELETE', `/v1/workflows/${w.id}`)
      const refused = await t.call('POST', `/v1/runs/${failed.id}/retry`)
      expect(refused.status).toBe(409)
      expect(refused.body.message).toContain('archived')
      expect(refused.body.message).toBe((await t.call('POST', `/v1/workflows/${w.id}/run`, { body: {} })).body.message)
      const retries = await t.system.store.all<{ id: string }>('SELECT id FROM runs WHERE retry_of = $1', [failed.id])
      expect(retries).toHaveLength(0)
    })

    it('pauses a live workflow after consecutive automatic failures, and a success resets the count', async () => {
      const w = await createLive(t, {
        definition: linear(
          {
            check: {
              type: 'code-transform',
              payload: {
                code: 'function transform(i) { if (!i.ok) throw new Error("bad"); return 1 }',
                input: { ok: '{{$trigger.body.ok}}' },
              },
            },
          },
          ['check'],
        ),
      })
      const hook = (body: unknown) => t.call('POST', `/v1/webhooks/${w.triggerSecret}`, { key: null, body })
      const fail = async () => waitForRun(t, (await hook({ ok: false })).body.data.runIds[0])
      await fail()
      await waitForRun(t, (await hook({ ok: true })).body.data.runIds[0])
      await fail()
      expect((await t.call('GET', `/v1/workflows/${w.id}`)).body.data.status).toBe('active')
      await fail()
      const paused = (await t.call('GET', `/v1/workflows/${w.id}`)).body.data
      expect(paused).toMatchObject({ status: 'paused', pausedReason: 'consecutive_failures' })
      const skipped = await hook({ ok: true })
      expect(skipped.body.data).toMatchObject({ action: 'skipped', reason: 'consecutive_failures', runIds: [] })
      await t.call('POST', `/v1/workflows/${w.id}/resume`)
      expect((await hook({ ok: true })).body.data.action).toBe('triggered')
    })

    it('pauses a live workflow whose node type no plugin provides any more (disabled_action)', async () => {
      // Another process on the same data, with a plugin this one does not load, publishes a workflow using it.
      const extra = definePlugin({
        id: 'extra',
        actions: [
          defineAction({
            type: 'extra-ping',
            name: 'Ping',
            description: 'ping',
            payload: Type.Object({}),
            result: Type.Object({ pong: Type.Boolean() }),
            run: () => ({ pong: true }),
          }),
        ],
      })
      const other = await openSystem(t.system.config, { logger: silentLogger, plugins: [extra], engine: false })
      const owner = await other.apiKeys.issue({
        organizationId: t.orgId,
        name: 'other',
        scope: 'read-write',
        role: 'owner',
        serviceAccountId: null,
        userId: null,
        createdBy: 'test',
        expiresAt: null,
      })
      const principal = await other.auth.authenticate(`Bearer ${owner.key}`, { ip: null, userAgent: null })
      const created = await other.workflows.create(principal, {
        definition: linear({ ping: { type: 'extra-ping', payload: {} } }, ['ping']) as never,
      })
      await other.workflows.publish(principal, created.id)
      await other.close()

      const hook = await t.call('POST', `/v1/webhooks/${created.triggerSecret}`, { key: null, body: {} })
      const run = await waitForRun(t, hook.body.data.runIds[0])
      expect(run.status).toBe('failure')
      expect(run.nodes.ping.error).toContain('not available')
      const w = (await t.call('GET', `/v1/workflows/${created.id}`)).body.data
      expect(w).toMatchObject({ status: 'paused', pausedReason: 'disabled_action' })
    })
  })
}
