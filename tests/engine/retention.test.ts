/**
 * Retention: finished runs older than their retention are pruned with their journal, hook
 * deliveries and stored webhook events; waiting runs and runs with deliveries still being tried
 * stay; status counts and the failure rate keep counting what was pruned. Time moves with the
 * Clock port, never by sleeping.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createManualClock } from '../../core/ports/clock.ts'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const ok = linear({ say: { type: 'log', payload: { message: 'hi' } } }, ['say'])
const boom = linear(
  { boom: { type: 'code-transform', payload: { code: 'function transform() { throw new Error("kaput") }' } } },
  ['boom'],
)
const hold = linear({ ask: { type: 'approval', payload: { message: 'ship it?' } } }, ['ask'])

for (const kind of storeKinds()) {
  describe(`retention (${kind})`, () => {
    const clock = createManualClock(Date.UTC(2026, 2, 10, 12, 0))
    let t: TestSystem
    beforeAll(async () => {
      t = await openTestSystem(kind, { AUTOMATON_RUN_RETENTION: '1h' }, { clock })
    })
    afterAll(() => t.close())

    const start = async (workflowId: string) => {
      const r = await t.call('POST', `/v1/workflows/${workflowId}/run`, { body: { payload: {} } })
      expect(r.status).toBe(200)
      return r.body.data.runId as string
    }
    const finish = async (workflowId: string) => (await waitForRun(t, await start(workflowId))).id as string
    const status = async (runId: string) => (await t.call('GET', `/v1/runs/${runId}`)).status
    const counts = async () => (await t.call('GET', '/v1/runs/status-counts')).body.data
    const failureRate = async () =>
      (await t.call('GET', `/v1/metrics/failure-rate?from=${Date.UTC(2026, 2, 1)}&to=${Date.UTC(2026, 2, 20)}`)).body
        .data
    const rows = async (sql: string, params: unknown[]) =>
      Number((await t.system.store.get<{ n: number }>(sql, params as never))!.n)

    it('prunes finished runs past the retention with their journal, keeps waiting runs, and keeps counting them', async () => {
      const good = await createLive(t, { name: 'good', definition: ok })
      const bad = await createLive(t, { name: 'bad', definition: boom })
      const waiting = await createLive(t, { name: 'waiting', definition: hold })
      const finished = [
        await finish(good.id),
        await finish(good.id),
        await finish(good.id),
        await finish(bad.id),
        await finish(bad.id),
      ]
      const parked = await start(waiting.id)
      await waitForRun(t, parked, (r) => r.status === 'waiting')
      const before = { counts: await counts(), rate: await failureRate() }
      expect(before.counts.counts).toMatchObject({ success: 3, failure: 2, waiting: 1 })
      expect(before.rate).toMatchObject({ total: 5, failed: 2 })
      expect(
        await rows(
          `SELECT COUNT(*) AS n FROM events WHERE run_id IN (${finished.map((_, i) => `$${i + 1}`).join(', ')})`,
          finished,
        ),
      ).toBeGreaterThan(0)

      clock.advance(30 * MINUTE)
      expect((await t.system.pruner.pruneNow()).runs).toBe(0)
      for (const id of finished) expect(await status(id)).toBe(200)

      clock.advance(31 * MINUTE)
      expect((await t.system.pruner.pruneNow()).runs).toBe(5)
      for (const id of finished) expect(await status(id)).toBe(404)
      expect((await t.call('GET', `/v1/runs/${parked}`)).body.data.status).toBe('waiting')
      expect(
        await rows(
          `SELECT COUNT(*) AS n FROM events WHERE run_id IN (${finished.map((_, i) => `$${i + 1}`).join(', ')})`,
          finished,
        ),
      ).toBe(0)
      expect((await t.call('GET', '/v1/runs?limit=100')).body.data.items.map((r: { id: string }) => r.id)).toEqual([
        parked,
      ])

      expect(await counts()).toEqual(before.counts)
      expect(await failureRate()).toEqual(before.rate)
      expect((await t.call('GET', `/v1/runs/status-counts?workflowId=${bad.id}`)).body.data.counts).toMatchObject({
        failure: 2,
        success: 0,
      })
      // Pruned runs count by the UTC day they finished: a range that ends the day before leaves them out.
      expect(
        (
          await t.call(
            'GET',
            `/v1/metrics/failure-rate?from=${Date.UTC(2026, 2, 1)}&to=${Date.UTC(2026, 2, 9, 23, 59)}`,
          )
        ).body.data.total,
      ).toBe(0)

      clock.advance(24 * HOUR)
      await t.system.pruner.pruneNow()
      expect((await t.call('GET', `/v1/runs/${parked}`)).body.data.status).toBe('waiting')
    })

    it('lets the organization keep runs longer or for ever, and a workflow shorten it', async () => {
      const put = (runRetention: string | null) =>
        t.call('PUT', `/v1/organizations/${t.orgId}/settings`, { body: { runRetention } })
      expect((await t.call('GET', `/v1/organizations/${t.orgId}/settings`)).body.data).toEqual({
        organizationId: t.orgId,
        runRetention: null,
        effectiveRunRetention: '1h',
        ssoRequired: false,
      })
      const forever = await put('0')
      expect(forever.status).toBe(200)
      expect(forever.body.data).toEqual({
        organizationId: t.orgId,
        runRetention: '0',
        effectiveRunRetention: '0',
        ssoRequired: false,
      })

      const kept = await createLive(t, { name: 'kept', definition: ok })
      const brief = await createLive(t, { name: 'brief', definition: ok, runRetention: '10m' })
      expect(brief.runRetention).toBe('10m')
      const keptRun = await finish(kept.id)
      const briefRun = await finish(brief.id)
      clock.advance(11 * MINUTE)
      expect((await t.system.pruner.pruneNow()).runs).toBe(1)
      expect(await status(briefRun)).toBe(404)
      clock.advance(30 * 24 * HOUR)
      await t.system.pruner.pruneNow()
      expect(await status(keptRun)).toBe(200)

      expect((await put('2h')).body.data.effectiveRunRetention).toBe('2h')
      clock.advance(MINUTE)
      expect((await t.system.pruner.pruneNow()).runs).toBe(1)
      expect(await status(keptRun)).toBe(404)
      expect((await put(null)).body.data).toEqual({
        organizationId: t.orgId,
        runRetention: null,
        effectiveRunRetention: '1h',
        ssoRequired: false,
      })
    })

    it("refuses a retention it cannot read, and other organizations' settings", async () => {
      for (const runRetention of ['30s', '1.5h', 'soon', '-1d']) {
        const r = await t.call('PUT', `/v1/organizations/${t.orgId}/settings`, { body: { runRetention } })
        expect(r.status).toBe(400)
        expect(r.body.code).toBe(400)
      }
      const other = await t.newOrganization('other-retention')
      expect(
        (await t.call('PUT', `/v1/organizations/${other.orgId}/settings`, { body: { runRetention: '1d' } })).status,
      ).toBe(404)
      expect(
        (await t.call('POST', '/v1/workflows', { body: { definition: ok, runRetention: 'a while' } })).status,
      ).toBe(400)
    })

    it('keeps a run whose hook deliveries are still being tried, and prunes its deliveries and old webhook events with it', async () => {
      const w = await createLive(t, { name: 'hooked', definition: ok })
      const [settled, retrying] = [await finish(w.id), await finish(w.id)]
      const at = clock.now()
      await t.system.store.write(async (tx) => {
        for (const [id, runId, dueAt] of [
          ['dlv_settled', settled, null],
          ['dlv_retrying', retrying, at + HOUR],
        ] as const) {
          await tx.run(
            `INSERT INTO hook_deliveries (id, organization_id, endpoint_id, event_id, event_type, workflow_id, run_id, payload, status, max_retries, due_at, created_at, updated_at)
             VALUES ($1, $2, 'whe_1', 'evt_1', 'run.succeeded', $3, $4, '{}', $5, 3, $6, $7, $7)`,
            [id, t.orgId, w.id, runId, dueAt === null ? 'delivered' : 'pending', dueAt, at],
          )
        }
        await tx.run(
          `INSERT INTO webhook_events (id, organization_id, source, provider_event_id, trigger_type, body, headers, received_at, action, run_ids, workflow_ids)
           VALUES ('wev_old', $1, 'payprovider', 'evt_p1', 'payprovider-paid', '{}', '{}', $2, 'triggered', '[]', '[]')`,
          [t.orgId, at],
        )
      })
      expect((await t.call('GET', '/v1/webhook-events/wev_old')).status).toBe(200)
      clock.advance(2 * HOUR)
      const result = await t.system.pruner.pruneNow()
      expect(result.webhookEvents).toBe(1)
      expect(await status(settled)).toBe(404)
      expect(await status(retrying)).toBe(200)
      expect(await rows('SELECT COUNT(*) AS n FROM hook_deliveries WHERE id = $1', ['dlv_settled'])).toBe(0)
      expect((await t.call('GET', '/v1/webhook-events/wev_old')).status).toBe(404)

      await t.system.store.run(
        "UPDATE hook_deliveries SET due_at = NULL, status = 'delivered' WHERE id = 'dlv_retrying'",
      )
      await t.system.pruner.pruneNow()
      expect(await status(retrying)).toBe(404)
      expect(await rows('SELECT COUNT(*) AS n FROM hook_deliveries WHERE run_id = $1', [retrying])).toBe(0)
    })
  })
}
