/** Starting runs: the inbound webhook, idempotency, run controls, public runs, listing and metrics. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, createWorkflow, linear, runAndWait, waitForRun } from '../helpers/workflows.ts'

const echo = linear({ say: { type: 'log', payload: { message: 'got {{$trigger.body.n}}' } } }, ['say'])

for (const kind of storeKinds()) {
  describe(`starting runs (${kind})`, () => {
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind)
    })
    afterAll(() => t.close())

    const hook = (secret: string, body: unknown, headers: Record<string, string> = {}) =>
      t.call('POST', `/v1/webhooks/${secret}`, { key: null, body, headers })

    it('starts the live version from the inbound webhook and answers the Webhook result object', async () => {
      const w = await createLive(t, { definition: echo })
      const r = await hook(w.triggerSecret, { n: 5 }, { 'x-source': 'crm' })
      expect(r.status).toBe(200)
      expect(r.body.code).toBe(200)
      expect(r.body.data).toMatchObject({ action: 'triggered' })
      expect(r.body.data.eventId).toMatch(/^evt_/)
      expect(r.body.data.runIds).toHaveLength(1)
      const run = await waitForRun(t, r.body.data.runIds[0])
      expect(run).toMatchObject({
        status: 'success',
        triggeredBy: 'webhook',
        eventId: r.body.data.eventId,
        workflowVersion: 1,
      })
      expect(run.nodes.say.result.message).toBe('got 5')
      expect(run.nodes.root.result.headers['x-source']).toBe('crm')
      expect(run.nodes.root.result.headers.authorization).toBeUndefined()
    })

    it('answers 404 for an unknown secret, an archived workflow; skips a draft-only or paused one', async () => {
      expect((await hook('nope', {})).status).toBe(404)
      const draft = await createWorkflow(t, { definition: echo })
      expect((await hook(draft.triggerSecret, {})).body.data).toMatchObject({
        action: 'skipped',
        reason: 'not_published',
        runIds: [],
      })
      const live = await createLive(t, { definition: echo })
      await t.call('POST', `/v1/workflows/${live.id}/pause`)
      expect((await hook(live.triggerSecret, {})).body.data).toMatchObject({ action: 'skipped', reason: 'paused' })
      await t.call('DELETE', `/v1/workflows/${live.id}`)
      expect((await hook(live.triggerSecret, {})).status).toBe(404)
    })

    it('deduplicates webhooks by Idempotency-Key, also when they arrive together', async () => {
      const w = await createLive(t, { definition: echo })
      const same = await Promise.all(
        Array.from({ length: 10 }, () => hook(w.triggerSecret, { n: 1 }, { 'idempotency-key': 'order-77' })),
      )
      const triggered = same.filter((r) => r.body.data.action === 'triggered')
      expect(triggered).toHaveLength(1)
      const runId = triggered[0].body.data.runIds[0]
      for (const r of same.filter((x) => x.body.data.action === 'skipped'))
        expect(r.body.data).toMatchObject({ reason: 'duplicate', runIds: [runId] })
      const runs = (await t.call('GET', `/v1/workflows/${w.id}/runs`)).body.data.items
      expect(runs).toHaveLength(1)
    })

    it('lets a client choose its run id; reusing it returns the same run', async () => {
      const w = await createWorkflow(t, { definition: echo })
      const runId = 'run_01CLIENTCHOSEN0000000000A'
      const first = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: { n: 1 }, runId } })
      expect(first.body.data).toEqual({ runId })
      const again = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: { n: 2 }, runId } })
      expect(again.body.data).toEqual({ runId })
      expect((await waitForRun(t, runId)).nodes.say.result.message).toBe('got 1')
      const other = await createWorkflow(t, { definition: echo })
      // Another workflow's run id is unusable, answered like a malformed one (no hint that it exists).
      const taken = await t.call('POST', `/v1/workflows/${other.id}/run`, { body: { runId } })
      expect(taken.status).toBe(400)
      expect(taken.body.details).toEqual([expect.objectContaining({ path: '/runId' })])
      expect(JSON.stringify(taken.body)).not.toContain('taken')
      expect((await t.call('POST', `/v1/workflows/${w.id}/run`, { body: { runId: 'not-a-run-id' } })).status).toBe(400)
    })

    it('runs drafts and paused workflows through the API, but not archived ones', async () => {
      const w = await createLive(t, { definition: echo })
      await t.call('POST', `/v1/workflows/${w.id}/pause`)
      expect((await runAndWait(t, w.id, { n: 3 })).status).toBe('success')
      await t.call('DELETE', `/v1/workflows/${w.id}`)
      const r = await t.call('POST', `/v1/workflows/${w.id}/run`, { body: {} })
      expect(r.status).toBe(409)
    })

    it('skips automatic triggers inside the cooldown, not API runs', async () => {
      const w = await createLive(t, { definition: echo, cooldownMs: 60_000 })
      expect((await hook(w.triggerSecret, {})).body.data.action).toBe('triggered')
      expect((await hook(w.triggerSecret, {})).body.data).toMatchObject({ action: 'skipped', reason: 'cooldown' })
      expect((await t.call('POST', `/v1/workflows/${w.id}/run`, { body: {} })).status).toBe(200)
      const live = (await t.call('GET', `/v1/workflows/${w.id}`)).body.data
      expect(live.lastTriggeredAt).toMatch(/^\d{4}-/)
    })

    it('counts automatic runs down from maxRuns, pauses at zero, and refill restores', async () => {
      const w = await createLive(t, { definition: echo, maxRuns: 2 })
      expect((await hook(w.triggerSecret, {})).body.data.action).toBe('triggered')
      expect((await t.call('GET', `/v1/workflows/${w.id}`)).body.data.remainRuns).toBe(1)
      expect((await hook(w.triggerSecret, {})).body.data.action).toBe('triggered')
      const paused = (await t.call('GET', `/v1/workflows/${w.id}`)).body.data
      expect(paused).toMatchObject({ remainRuns: 0, status: 'paused', pausedReason: 'max_runs_exhausted' })
      expect((await hook(w.triggerSecret, {})).body.data).toMatchObject({
        action: 'skipped',
        reason: 'max_runs_exhausted',
      })
      expect((await t.call('POST', `/v1/workflows/${w.id}/resume`)).status).toBe(409)
      const refilled = (await t.call('POST', `/v1/workflows/${w.id}/refill`, { body: { remainRuns: 1 } })).body.data
      expect(refilled).toMatchObject({ status: 'active', remainRuns: 1, pausedReason: '' })
      expect((await hook(w.triggerSecret, {})).body.data.action).toBe('triggered')
      // API runs do not count.
      await runAndWait(t, w.id)
      expect((await t.call('GET', `/v1/workflows/${w.id}`)).body.data.remainRuns).toBe(0)
    })

    it('runs public_execute workflows without a key, limited per caller', async () => {
      const w = await createLive(t, { definition: echo, visibility: 'public_execute', publicRunDailyLimit: 2 })
      const first = await t.call('POST', `/v1/public/workflows/${w.id}/run`, { key: null, body: { payload: { n: 1 } } })
      expect(first.status).toBe(200)
      expect((await waitForRun(t, first.body.data.runId)).triggeredBy).toBe('public')
      expect((await t.call('POST', `/v1/public/workflows/${w.id}/run`, { key: null, body: {} })).status).toBe(200)
      const limited = await t.call('POST', `/v1/public/workflows/${w.id}/run`, { key: null, body: {} })
      expect(limited.status).toBe(429)
      expect(limited.headers.get('retry-after')).toBeTruthy()
      const privateOne = await createLive(t, { definition: echo })
      expect((await t.call('POST', `/v1/public/workflows/${privateOne.id}/run`, { key: null, body: {} })).status).toBe(
        404,
      )
      const cooled = await createLive(t, {
        definition: echo,
        visibility: 'public_execute',
        publicRunCooldownSeconds: 60,
      })
      expect((await t.call('POST', `/v1/public/workflows/${cooled.id}/run`, { key: null, body: {} })).status).toBe(200)
      expect((await t.call('POST', `/v1/public/workflows/${cooled.id}/run`, { key: null, body: {} })).status).toBe(429)
    })

    it('lists runs newest first, filters them, counts them by status, and summarizes', async () => {
      const w = await createWorkflow(t, {
        definition: linear(
          {
            check: {
              type: 'code-transform',
              payload: {
                code: 'function transform(i) { if (i) throw new Error("no"); return 1 }',
                input: '{{$trigger.body.fail}}',
              },
            },
          },
          ['check'],
        ),
      })
      const ok = await runAndWait(t, w.id, { fail: false })
      const bad = await runAndWait(t, w.id, { fail: true })
      const list = (await t.call('GET', `/v1/workflows/${w.id}/runs`)).body.data
      expect(list.items.map((r: { id: string }) => r.id)).toEqual([bad.id, ok.id])
      expect(list.items[0].nodes).toBeUndefined()
      const failures = (await t.call('GET', `/v1/runs?workflowId=${w.id}&status=failure`)).body.data.items
      expect(failures.map((r: { id: string }) => r.id)).toEqual([bad.id])
      const counts = (await t.call('GET', `/v1/runs/status-counts?workflowId=${w.id}`)).body.data
      expect(counts).toEqual({
        total: 2,
        counts: { running: 0, waiting: 0, success: 1, partial: 0, failure: 1, cancelled: 0 },
      })
      const summary = (await t.call('GET', `/v1/runs/${bad.id}?summary=true`)).body.data
      expect(summary.nodes.check.status).toBe('failure')
      expect(summary.nodes.check.input).toBeUndefined()
      expect(summary.definition).toBeUndefined()
      // In full, the snapshot shows its block expansions, empty while nothing expanded blocks.
      expect((await t.call('GET', `/v1/runs/${bad.id}`)).body.data.definition.blockExpansions).toEqual({})
      expect((await t.call('GET', '/v1/runs?status=exploded')).status).toBe(400)
      const other = await t.newOrganization(`runs-other-${kind}`)
      expect((await t.call('GET', `/v1/runs/${bad.id}`, { key: other.key })).status).toBe(404)
      expect((await t.call('GET', '/v1/runs', { key: other.key })).body.data.items).toEqual([])
    })

    it('reports the failure rate of a time range, at most 365 days long', async () => {
      const other = await t.newOrganization(`rate-${kind}`)
      const w = await createWorkflow(
        t,
        {
          definition: linear(
            {
              check: {
                type: 'code-transform',
                payload: {
                  code: 'function transform(i) { if (i) throw new Error("no"); return 1 }',
                  input: '{{$trigger.body.fail}}',
                },
              },
            },
            ['check'],
          ),
        },
        other.key,
      )
      const run = async (fail: boolean) => {
        const r = await t.call('POST', `/v1/workflows/${w.id}/run`, { key: other.key, body: { payload: { fail } } })
        await t.call('GET', '/healthz')
        await waitForRun(t, r.body.data.runId, (run) => ['success', 'failure'].includes(run.status), 10_000, other.key)
      }
      const from = Date.now() - 1000
      await run(false)
      await run(true)
      await run(true)
      await run(false)
      const to = Date.now() + 1000
      const rate = await t.call('GET', `/v1/metrics/failure-rate?from=${from}&to=${to}`, { key: other.key })
      expect(rate.body.data).toEqual({ total: 4, failed: 2, partial: 0, failureRate: 50 })
      const empty = await t.call('GET', `/v1/metrics/failure-rate?from=0&to=1000`, { key: other.key })
      expect(empty.body.data).toEqual({ total: 0, failed: 0, partial: 0, failureRate: 0 })
      const tooLong = await t.call('GET', `/v1/metrics/failure-rate?from=0&to=${366 * 24 * 3600 * 1000}`, {
        key: other.key,
      })
      expect(tooLong.status).toBe(400)
      expect((await t.call('GET', `/v1/metrics/failure-rate?from=${to}&to=${from}`, { key: other.key })).status).toBe(
        400,
      )
      expect((await t.call('GET', '/v1/metrics/failure-rate?from=abc&to=1', { key: other.key })).status).toBe(400)
      expect((await t.call('GET', '/v1/metrics/failure-rate?to=1', { key: other.key })).status).toBe(400)
    })
  })
}
