/**
 * Execution-hook deliveries through real runs on both stores: what is sent and how it is signed,
 * filtering, retries, Retry-After, 410, redirects, timeouts, and the retry and replay endpoints.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createGuardedHttpClient } from '../../adapters/http/guarded-client.ts'
import { type HttpClient, OutboundTimeoutError } from '../../core/ports/http-client.ts'
import { verifyWebhook } from '../../core/security/webhook-signature.ts'
import { createSkewedClock, type SkewedClock } from '../helpers/clock.ts'
import { createHook, requestsTo, settled, waitForDeliveries } from '../helpers/hooks.ts'
import { type Received, startReceiver, type Receiver } from '../helpers/receiver.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createWorkflow, linear, runAndWait } from '../helpers/workflows.ts'

/** How long every answer took, as the outbound client reports it: a delivery records what the client measured. */
const ANSWER_MS = 1234

/**
 * The real client, reporting ANSWER_MS for every answer it got. A path ending in /stuck stands for a
 * receiver that never answers: its deadline passes on the clock (a timeout is measured by the clock),
 * and the client gives up as the real one does at its deadline.
 */
function reportingClient(clock: SkewedClock): HttpClient & { timeouts: number[] } {
  const real = createGuardedHttpClient({ allow: ['127.0.0.1/32'] })
  const timeouts: number[] = []
  return {
    timeouts,
    checkTarget: (url) => real.checkTarget(url),
    send: async (request) => {
      if (new URL(request.url).pathname.endsWith('/stuck')) {
        const timeoutMs = request.timeoutMs ?? 0
        timeouts.push(timeoutMs)
        clock.skip(timeoutMs)
        throw new OutboundTimeoutError(timeoutMs)
      }
      return { ...(await real.send(request)), durationMs: ANSWER_MS }
    },
  }
}

for (const kind of storeKinds()) {
  describe(`execution hook deliveries (${kind})`, () => {
    let t: TestSystem
    let receiver: Receiver
    let workflowId: string
    const plans = new Map<string, (req: Received, n: number) => Response | Promise<Response>>()
    const clock = createSkewedClock()
    const http = reportingClient(clock)

    beforeAll(async () => {
      receiver = startReceiver()
      receiver.respond((req) => {
        const path = req.path
        const plan = plans.get(path)
        return plan ? plan(req, receiver.requests.filter((r) => r.path === path).length) : Response.json({ ok: true })
      })
      t = await openTestSystem(
        kind,
        {
          AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
          AUTOMATON_HOOK_RETRY_SCHEDULE: '0,50ms,100ms',
          AUTOMATON_HOOK_TIMEOUT_MS: '400',
          AUTOMATON_HOOK_POLL_MS: '100',
        },
        { http, clock },
      )
      workflowId = (
        await createWorkflow(t, {
          definition: linear({ greet: { type: 'log', payload: { message: 'hello {{root.result.body.name}}' } } }, [
            'greet',
          ]),
        })
      ).id
    })
    afterAll(async () => {
      await t.close()
      await receiver.stop()
    })

    /** A hook on its own path; disabled again after the test so later runs do not reach it. */
    async function withHook(
      path: string,
      body: Record<string, unknown>,
      test: (hook: { id: string; secret: string }) => Promise<void>,
    ) {
      const created = await createHook(t, { url: `${receiver.url}${path}`, ...body })
      try {
        await test({ id: created.endpoint.id, secret: created.signingSecret })
      } finally {
        await t.call('POST', `/v1/execution-webhooks/${created.endpoint.id}/disable`)
      }
    }

    const deliveriesOf = (hookId: string, runId: string) =>
      waitForDeliveries(t, `endpointId=${hookId}&runId=${runId}`, settled)

    it('delivers every run and node event of a run, signed the Standard Webhooks way', async () => {
      await withHook('/all', {}, async (hook) => {
        const run = await runAndWait(t, workflowId, { name: 'Ada' }, undefined)
        const deliveries = await waitForDeliveries(
          t,
          `endpointId=${hook.id}&runId=${run.id}`,
          (items) => items.length === 5 && settled(items),
        )
        expect(deliveries.every((d) => d.status === 'success' && d.responseStatus === 200 && d.retryCount === 0)).toBe(
          true,
        )
        // Deliveries are sent concurrently and may arrive in any order; data.sequence orders a run's events.
        const received = requestsTo(receiver.requests, '/all')
          .filter((r) => r.json.data.runId === run.id)
          .sort((a, b) => a.json.data.sequence - b.json.data.sequence)
        expect(received.map((r) => r.json.data.sequence)).toEqual([1, 2, 3, 4, 5])
        expect(received.map((r) => r.json.type)).toEqual([
          'run.started',
          'node.succeeded',
          'node.started',
          'node.succeeded',
          'run.succeeded',
        ])
        for (const r of received) {
          expect(await verifyWebhook(hook.secret, r.headers, r.body)).toBeNull()
          expect(r.headers['content-type']).toBe('application/json')
          expect(r.headers['webhook-id']).toMatch(/^evt_\d+$/)
          expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
          // Signed at the time of its attempt, in seconds.
          const attempt = deliveries.find((d) => d.eventId === r.headers['webhook-id'])!.attempts[0]
          expect(Number(r.headers['webhook-timestamp'])).toBe(Math.floor(Date.parse(attempt.at) / 1000))
          expect(r.json.data).toMatchObject({ organizationId: t.orgId, workflowId, runId: run.id })
          expect(Date.parse(r.json.timestamp)).toBeGreaterThan(0)
        }
        // The delivery log names the same event ids the receiver got.
        expect(new Set(deliveries.map((d) => d.eventId))).toEqual(new Set(received.map((r) => r.headers['webhook-id'])))
        const [started, trigger, nodeStarted, nodeDone, done] = received.map((r) => r.json.data)
        expect(started).toMatchObject({
          status: 'running',
          workflowVersion: 1,
          triggerNodeId: 'root',
          triggeredBy: 'key',
        })
        expect(trigger).toMatchObject({
          nodeId: 'root',
          status: 'success',
          trigger: true,
          result: { body: { name: 'Ada' } },
        })
        expect(trigger.result.headers).toBeUndefined()
        expect(nodeStarted).toMatchObject({
          nodeId: 'greet',
          nodeKey: 'greet',
          nodeType: 'log',
          status: 'running',
          attempt: 1,
        })
        expect(nodeDone).toMatchObject({ nodeId: 'greet', status: 'success', result: { message: 'hello Ada' } })
        expect(nodeDone.input).toBeUndefined()
        expect(done).toMatchObject({ status: 'success' })
        // One record per event, readable with the payload that was sent.
        const one = await t.call('GET', `/v1/execution-webhooks/deliveries/${deliveries[0].id}`)
        expect(one.body.data.payload.type).toBe(deliveries[0].eventType)
      })
    })

    it('sends only the subscribed event types', async () => {
      await withHook('/terminal', { subscribedEventTypes: ['run.succeeded', 'run.failed'] }, async (hook) => {
        const run = await runAndWait(t, workflowId, { name: 'Bo' })
        const deliveries = await deliveriesOf(hook.id, run.id)
        expect(deliveries.map((d) => d.eventType)).toEqual(['run.succeeded'])
        expect(requestsTo(receiver.requests, '/terminal').map((r) => r.json.type)).toEqual(['run.succeeded'])
      })
    })

    it('retries a failing receiver on the schedule until it answers 2xx, with the same webhook-id and body', async () => {
      plans.set('/flaky', (_, n) => (n <= 2 ? new Response('busy', { status: 503 }) : Response.json({ ok: true })))
      await withHook('/flaky', { subscribedEventTypes: ['run.succeeded'] }, async (hook) => {
        const run = await runAndWait(t, workflowId, { name: 'Cy' })
        const [delivery] = await deliveriesOf(hook.id, run.id)
        expect(delivery).toMatchObject({
          status: 'success',
          retryCount: 2,
          responseStatus: 200,
          errorMessage: '',
          nextRetryAt: '',
        })
        expect(delivery.attempts.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([503, 503, 200])
        expect(delivery.attempts[0].errorMessage).toBe('answered 503')
        const sent = requestsTo(receiver.requests, '/flaky')
        expect(sent).toHaveLength(3)
        expect(new Set(sent.map((r) => r.headers['webhook-id'])).size).toBe(1)
        expect(new Set(sent.map((r) => r.body)).size).toBe(1)
        for (const r of sent) expect(await verifyWebhook(hook.secret, r.headers, r.body)).toBeNull()
        // The third attempt waited at least the second delay of the schedule (50 ms).
        expect(Date.parse(delivery.attempts[2].at) - Date.parse(delivery.attempts[1].at)).toBeGreaterThanOrEqual(50)
      })
    })

    it('gives up after maxRetries and keeps what the receiver answered', async () => {
      plans.set('/down', () => new Response('x'.repeat(10_000), { status: 500 }))
      await withHook('/down', { subscribedEventTypes: ['run.succeeded'], maxRetries: 1 }, async (hook) => {
        const run = await runAndWait(t, workflowId, { name: 'Di' })
        const [delivery] = await deliveriesOf(hook.id, run.id)
        expect(delivery).toMatchObject({
          status: 'failure',
          retryCount: 1,
          maxRetries: 1,
          responseStatus: 500,
          errorMessage: 'answered 500',
          nextRetryAt: '',
        })
        expect(delivery.responseBody).toBe('x'.repeat(4096))
        // The time the client measured for the last answer, and for each attempt its own.
        expect(delivery.durationMs).toBe(ANSWER_MS)
        expect(delivery.attempts.map((a: { durationMs: number }) => a.durationMs)).toEqual([ANSWER_MS, ANSWER_MS])
        expect(requestsTo(receiver.requests, '/down')).toHaveLength(2)
      })
    })

    it('keeps an answer with NUL bytes and broken UTF-8 as readable text, and the delivery ends', async () => {
      // Text columns cannot hold NUL on Postgres: the outcome would fail to be written, again and again.
      plans.set('/nul', () => new Response(new Uint8Array([0x6f, 0x6b, 0x00, 0xff, 0x21]), { status: 200 }))
      await withHook('/nul', { subscribedEventTypes: ['run.succeeded'] }, async (hook) => {
        const run = await runAndWait(t, workflowId, { name: 'Nu' })
        const [delivery] = await deliveriesOf(hook.id, run.id)
        expect(delivery).toMatchObject({ status: 'success', responseStatus: 200, errorMessage: '' })
        expect(delivery.responseBody).toBe('ok\uFFFD\uFFFD!')
        expect(requestsTo(receiver.requests, '/nul')).toHaveLength(1)
      })
    })

    it('waits as long as Retry-After asks when that is later than the schedule', async () => {
      plans.set('/slow-down', (_, n) =>
        n === 1 ? new Response('later', { status: 429, headers: { 'retry-after': '1' } }) : Response.json({ ok: true }),
      )
      await withHook('/slow-down', { subscribedEventTypes: ['run.succeeded'] }, async (hook) => {
        const run = await runAndWait(t, workflowId, { name: 'Ed' })
        const query = `endpointId=${hook.id}&runId=${run.id}`
        await waitForDeliveries(t, query, (items) => items[0]?.attempts.length >= 1, 5000)
        // The second of Retry-After rather than the schedule's 50 ms: the clock is moved past it.
        clock.skip(1000)
        const [delivery] = await waitForDeliveries(t, query, settled, 5000)
        expect(delivery.status).toBe('success')
        const [first, second] = delivery.attempts.map((a: { at: string }) => Date.parse(a.at))
        expect(second - first).toBeGreaterThanOrEqual(1000)
      })
    })

    it('sends a queued retry to the URL a PATCH gave the endpoint', async () => {
      plans.set('/moving', () => new Response('moved on', { status: 503, headers: { 'retry-after': '1' } }))
      await withHook('/moving', { subscribedEventTypes: ['run.succeeded'] }, async (hook) => {
        const run = await runAndWait(t, workflowId, { name: 'Mo' })
        await waitForDeliveries(
          t,
          `endpointId=${hook.id}&runId=${run.id}`,
          (items) => items[0]?.status === 'retrying',
          5000,
        )
        const patched = await t.call('PATCH', `/v1/execution-webhooks/${hook.id}`, {
          body: { url: `${receiver.url}/moved` },
        })
        expect(patched.status).toBe(200)
        clock.skip(1000)
        const [delivery] = await waitForDeliveries(t, `endpointId=${hook.id}&runId=${run.id}`, settled, 5000)
        expect(delivery.status).toBe('success')
        expect(delivery.attempts.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([503, 200])
        expect(requestsTo(receiver.requests, '/moving')).toHaveLength(1)
        const moved = requestsTo(receiver.requests, '/moved')
        expect(moved).toHaveLength(1)
        expect(moved[0].json.data.runId).toBe(run.id)
      })
    })

    it('closes a queued retry unsent when its endpoint is deleted, and keeps the record', async () => {
      plans.set('/deleted', () => new Response('later', { status: 503, headers: { 'retry-after': '1' } }))
      await withHook('/deleted', { subscribedEventTypes: ['run.succeeded'] }, async (hook) => {
        const run = await runAndWait(t, workflowId, { name: 'Ny' })
        await waitForDeliveries(
          t,
          `endpointId=${hook.id}&runId=${run.id}`,
          (items) => items[0]?.status === 'retrying',
          5000,
        )
        expect((await t.call('DELETE', `/v1/execution-webhooks/${hook.id}`)).status).toBe(200)
        clock.skip(1000)
        const [delivery] = await waitForDeliveries(t, `endpointId=${hook.id}&runId=${run.id}`, settled, 5000)
        expect(delivery).toMatchObject({ status: 'failure', errorMessage: 'not sent: the endpoint no longer exists' })
        expect(delivery.attempts).toHaveLength(1)
        expect(requestsTo(receiver.requests, '/deleted')).toHaveLength(1)
        // A later run: a live endpoint gets its delivery, the deleted one none.
        await withHook('/witness', { subscribedEventTypes: ['run.succeeded'] }, async (witness) => {
          const next = await runAndWait(t, workflowId, { name: 'Ob' })
          await deliveriesOf(witness.id, next.id)
          expect(
            (await t.call('GET', `/v1/execution-webhooks/deliveries?runId=${next.id}&endpointId=${hook.id}`)).body.data
              .items,
          ).toEqual([])
        })
      })
    })

    it('disables the endpoint when the receiver answers 410 Gone', async () => {
      plans.set('/gone', () => new Response('gone', { status: 410 }))
      await withHook('/gone', { subscribedEventTypes: ['run.succeeded'] }, async (hook) => {
        const run = await runAndWait(t, workflowId, { name: 'Fi' })
        const [delivery] = await deliveriesOf(hook.id, run.id)
        expect(delivery).toMatchObject({ status: 'failure', responseStatus: 410, retryCount: 0 })
        expect(delivery.errorMessage).toContain('410')
        const endpoint = (await t.call('GET', `/v1/execution-webhooks/${hook.id}`)).body.data
        expect(endpoint.status).toBe('disabled')
        expect(endpoint.disabledReason).toContain('410')
        // Nothing more is queued for it: deliveries commit with their events, so a finished run has all of its own.
        const next = await runAndWait(t, workflowId, { name: 'Gu' })
        expect(
          (await t.call('GET', `/v1/execution-webhooks/deliveries?endpointId=${hook.id}&runId=${next.id}`)).body.data
            .items,
        ).toEqual([])
        expect(requestsTo(receiver.requests, '/gone')).toHaveLength(1)
      })
    })

    it('does not follow redirects: a 3xx is a failed attempt', async () => {
      plans.set('/moved', () => new Response(null, { status: 302, headers: { location: `${receiver.url}/elsewhere` } }))
      await withHook('/moved', { subscribedEventTypes: ['run.succeeded'], maxRetries: 0 }, async (hook) => {
        const run = await runAndWait(t, workflowId, { name: 'Ha' })
        const [delivery] = await deliveriesOf(hook.id, run.id)
        expect(delivery).toMatchObject({ status: 'failure', responseStatus: 302 })
        expect(delivery.errorMessage).toContain('redirects are not followed')
        expect(requestsTo(receiver.requests, '/elsewhere')).toHaveLength(0)
      })
    })

    it('records a receiver that does not answer in time as a timed-out attempt', async () => {
      await withHook('/stuck', { subscribedEventTypes: ['run.succeeded'], maxRetries: 0 }, async (hook) => {
        const run = await runAndWait(t, workflowId, { name: 'Io' })
        const [delivery] = await deliveriesOf(hook.id, run.id)
        expect(delivery).toMatchObject({ status: 'failure', responseStatus: null })
        expect(delivery.errorMessage).toContain('timed out')
        // The configured timeout reached the client, and the attempt lasted (on the clock) until it passed.
        expect(http.timeouts).toEqual([400])
        expect(delivery.durationMs).toBeGreaterThanOrEqual(400)
      })
    })

    it('retries the same record on request, and replays an event as a new record with the same webhook-id', async () => {
      let failing = true
      plans.set('/manual', () => (failing ? new Response('no', { status: 500 }) : Response.json({ ok: true })))
      await withHook('/manual', { subscribedEventTypes: ['run.succeeded'], maxRetries: 0 }, async (hook) => {
        const run = await runAndWait(t, workflowId, { name: 'Jo' })
        const [failed] = await deliveriesOf(hook.id, run.id)
        expect(failed.status).toBe('failure')
        failing = false
        const retried = await t.call('POST', `/v1/execution-webhooks/deliveries/${failed.id}/retry`)
        expect(retried.status).toBe(200)
        expect(retried.body.data).toMatchObject({ id: failed.id, status: 'retrying' })
        const [delivered] = await waitForDeliveries(
          t,
          `endpointId=${hook.id}&runId=${run.id}`,
          (items) => items[0]?.status === 'success',
        )
        expect(delivered).toMatchObject({ id: failed.id, retryCount: 1, responseStatus: 200 })
        expect((await t.call('POST', `/v1/execution-webhooks/deliveries/${failed.id}/retry`)).status).toBe(409)

        // Another organization cannot see, retry or replay it.
        const other = await t.newOrganization(`other-${kind}`)
        for (const [method, path] of [
          ['GET', ''],
          ['POST', '/retry'],
          ['POST', '/replay'],
        ] as const) {
          expect(
            (await t.call(method, `/v1/execution-webhooks/deliveries/${failed.id}${path}`, { key: other.key })).status,
          ).toBe(404)
        }
        expect(
          (await t.call('GET', `/v1/execution-webhooks/deliveries?runId=${run.id}`, { key: other.key })).body.data
            .items,
        ).toEqual([])

        const replayed = await t.call('POST', `/v1/execution-webhooks/deliveries/${failed.id}/replay`)
        expect(replayed.status).toBe(200)
        expect(replayed.body.data).toMatchObject({
          status: 'pending',
          replayOf: failed.id,
          eventId: failed.eventId,
          retryCount: 0,
        })
        expect(replayed.body.data.id).not.toBe(failed.id)
        const all = await waitForDeliveries(
          t,
          `endpointId=${hook.id}&runId=${run.id}`,
          (items) => items.length === 2 && settled(items),
        )
        expect(all.every((d) => d.status === 'success')).toBe(true)
        const sent = requestsTo(receiver.requests, '/manual')
        expect(sent).toHaveLength(3)
        expect(new Set(sent.map((r) => r.headers['webhook-id']))).toEqual(new Set([failed.eventId]))
        expect(new Set(sent.map((r) => r.body)).size).toBe(1)
      })
    })

    it('signs with both the new and the previous secret while the previous one is honoured', async () => {
      await withHook('/rotate', { subscribedEventTypes: ['run.succeeded'] }, async (hook) => {
        const rotated = await t.call('POST', `/v1/execution-webhooks/${hook.id}/regenerate-secret`, {
          body: { previousSecretTtlSeconds: 60 },
        })
        expect(rotated.status).toBe(200)
        const fresh = rotated.body.data.signingSecret
        expect(fresh).toMatch(/^whsec_/)
        expect(fresh).not.toBe(hook.secret)
        expect(rotated.body.data.endpoint.previousSecretExpiresAt).toMatch(/^\d{4}-/)
        const run = await runAndWait(t, workflowId, { name: 'Ki' })
        await deliveriesOf(hook.id, run.id)
        const [sent] = requestsTo(receiver.requests, '/rotate')
        expect(sent.headers['webhook-signature'].split(' ')).toHaveLength(2)
        expect(await verifyWebhook(fresh, sent.headers, sent.body)).toBeNull()
        expect(await verifyWebhook(hook.secret, sent.headers, sent.body)).toBeNull()

        await t
          .call('POST', `/v1/execution-webhooks/${hook.id}/regenerate-secret`, {
            body: { previousSecretTtlSeconds: 0 },
          })
          .then(async (r) => {
            const newest = r.body.data.signingSecret
            const again = await runAndWait(t, workflowId, { name: 'Lu' })
            await deliveriesOf(hook.id, again.id)
            const last = requestsTo(receiver.requests, '/rotate').at(-1)!
            expect(last.headers['webhook-signature'].split(' ')).toHaveLength(1)
            expect(await verifyWebhook(newest, last.headers, last.body)).toBeNull()
            expect(await verifyWebhook(fresh, last.headers, last.body)).toBe('no signature matches')
          })
      })
    })
  })
}
