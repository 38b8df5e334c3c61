/**
 * The bounded admission backlog: past AUTOMATON_MAX_BACKLOG runs admitted and not started, or
 * past one organization's share of it, webhooks and API runs answer 429 with Retry-After and
 * the error body; every run accepted before runs once the backlog drains, and none refused is
 * stored. Runs are held back by an outbound HTTP call that answers only when the test says so.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'bun:test'
import type { HttpClient, OutboundResponse } from '../../core/ports/http-client.ts'
import type { Store } from '../../core/ports/store.ts'
import { storeKinds, TEST_DATABASE_URL, TEST_NATS_URL, warnSkipped } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { createLive, linear, waitForRun } from '../helpers/workflows.ts'
import { paymentEvent, postPayment, triggered } from '../integrations/helpers.ts'

const SIGNING_SECRET = 'whsec_backlog_0123456789abcdef'

/** An HTTP client whose calls answer once `open()` is called. */
function gatedHttp() {
  let open!: () => void
  let gate = new Promise<void>((resolve) => (open = resolve))
  const client: HttpClient = {
    async checkTarget() {},
    async send(): Promise<OutboundResponse> {
      await gate
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"ok":true}',
        truncated: false,
        durationMs: 1,
        remoteAddress: null,
      }
    },
  }
  return {
    client,
    open: () => open(),
    close() {
      gate = new Promise<void>((resolve) => (open = resolve))
    },
  }
}

const held = linear({ call: { type: 'http-request', payload: { url: 'https://example.test/slow' } } }, ['call'])

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(10)
  }
}

/**
 * Resolves once an API process has counted its backlog in the store anew: a count it began after
 * this call has ended (reads do not overlap, so the second one begun proves the first complete).
 */
function backlogReadAgain(store: Store): Promise<void> {
  const all = store.all
  let begun = 0
  return new Promise<void>((resolve) => {
    store.all = ((sql: string, params?: Parameters<Store['all']>[1]) => {
      if (sql.includes('snapshot IS NULL GROUP BY organization_id') && ++begun === 2) {
        store.all = all
        resolve()
      }
      return all.call(store, sql, params)
    }) as Store['all']
  })
}

async function webhook(t: TestSystem, secret: string, i: number) {
  return t.call('POST', `/v1/webhooks/${secret}`, { body: { i }, key: null })
}

for (const kind of storeKinds()) {
  describe(`the admission backlog (${kind}, embedded)`, () => {
    const http = gatedHttp()
    let t: TestSystem
    let other: { orgId: string; key: string }
    let third: { orgId: string; key: string }
    beforeAll(async () => {
      // Six runs not started in all, three of them per organization; one run executes at a time.
      t = await openTestSystem(
        kind,
        { AUTOMATON_WORKER_CONCURRENCY: '1', AUTOMATON_MAX_BACKLOG: '6', AUTOMATON_MAX_BACKLOG_ORG_SHARE: '50' },
        { http: http.client },
      )
      other = await t.newOrganization('beta')
      third = await t.newOrganization('gamma')
    })
    afterEach(() => http.open())
    afterAll(async () => {
      http.open()
      await t?.close()
    })

    it("answers 429 with Retry-After past an organization's share and past the installation's bound, and runs everything it accepted", async () => {
      http.close()
      const a = await createLive(t, { definition: held })
      const b = await createLive(t, { definition: held }, other.key)
      const c = await createLive(t, { definition: held }, third.key)
      await t.call('POST', '/v1/connectors', {
        body: { type: 'payprovider', name: 'main', data: { signingSecret: SIGNING_SECRET } },
      })
      const paid = await triggered(t, 'payprovider-payment-receive', {})

      // The first run starts and is held in its HTTP call: the worker is busy.
      expect((await webhook(t, a.triggerSecret, 0)).body.data.action).toBe('triggered')
      await until(() => t.system.engine.executor.active === 1, 'the first run to start')

      const acceptedA = []
      for (let i = 1; i <= 3; i++) {
        const r = await webhook(t, a.triggerSecret, i)
        expect(r.status).toBe(200)
        acceptedA.push(r.body.data.runIds[0])
      }
      const refused = await webhook(t, a.triggerSecret, 4)
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60)
      expect(refused.body).toMatchObject({
        code: 429,
        message: expect.stringContaining('share of the backlog'),
        requestId: expect.any(String),
      })
      // An API run of the same organization is refused as well.
      const manual = await t.call('POST', `/v1/workflows/${a.id}/run`, { body: { payload: {} } })
      expect(manual.status).toBe(429)
      expect(manual.headers.get('retry-after')).not.toBeNull()
      // So is an integration event that would start a run; the provider's retry is taken later.
      const event = paymentEvent('evt_backlog_1', 4200)
      const refusedEvent = await postPayment(t, t.orgId, event, [SIGNING_SECRET])
      expect(refusedEvent.status).toBe(429)
      expect(refusedEvent.headers.get('retry-after')).not.toBeNull()

      // Another organization still gets its share.
      for (let i = 0; i < 3; i++) expect((await webhook(t, b.triggerSecret, i)).status).toBe(200)
      expect((await webhook(t, b.triggerSecret, 3)).status).toBe(429)
      // Now the installation holds six: a third organization with none queued is refused too.
      const full = await webhook(t, c.triggerSecret, 0)
      expect(full.status).toBe(429)
      expect(full.body.message).toContain('the service is at its backlog')

      const ready = await t.call('GET', '/readyz', { key: null })
      expect(ready.status).toBe(200)
      expect(ready.body.backlog).toMatchObject({ total: 6, max: 6, perOrganizationMax: 3 })

      // Released, the backlog drains: every accepted run succeeds, no refused one was stored.
      http.open()
      for (const runId of acceptedA) expect((await waitForRun(t, runId)).status).toBe('success')
      await until(
        async () =>
          (await t.call('GET', `/v1/runs/status-counts?workflowId=${b.id}`, { key: other.key })).body.data.counts
            .success === 3,
        "the second organization's runs",
      )
      const countsA = (await t.call('GET', `/v1/runs/status-counts?workflowId=${a.id}`)).body.data
      expect(countsA).toMatchObject({ total: 4, counts: { success: 4, running: 0 } })
      const countsC = (await t.call('GET', `/v1/runs/status-counts?workflowId=${c.id}`, { key: third.key })).body.data
      expect(countsC.total).toBe(0)
      const retried = await postPayment(t, t.orgId, event, [SIGNING_SECRET])
      expect(retried.status).toBe(200)
      expect(retried.body.data ?? retried.body).toMatchObject({ action: 'triggered' })
      expect((await waitForRun(t, (retried.body.data ?? retried.body).runIds[0])).workflowId).toBe(paid.id)
      // And admission is open again.
      const again = await webhook(t, c.triggerSecret, 1)
      expect(again.status).toBe(200)
      await until(
        async () =>
          (await t.call('GET', `/v1/runs/${again.body.data.runIds[0]}`, { key: third.key })).body.data?.status ===
          'success',
        "the third organization's run",
      )
    })
  })
}

const scaled = Boolean(TEST_DATABASE_URL && TEST_NATS_URL)
if (!scaled)
  warnSkipped(
    'the admission backlog of an API process',
    TEST_DATABASE_URL ? 'AUTOMATON_TEST_NATS_URL' : 'AUTOMATON_TEST_DATABASE_URL',
  )

describe.skipIf(!scaled)('the admission backlog of an API process (Postgres and NATS)', () => {
  let api: TestSystem
  let worker: TestSystem | undefined
  beforeAll(async () => {
    // The API process executes nothing: with no worker up, every admitted run waits in the store.
    api = await openTestSystem(
      'postgres',
      {
        AUTOMATON_NATS_URL: TEST_NATS_URL!,
        AUTOMATON_NATS_STREAM: `T_BACKLOG_${Date.now()}`,
        AUTOMATON_MAX_BACKLOG: '4',
        AUTOMATON_MAX_BACKLOG_ORG_SHARE: '50',
      },
      { role: 'api' },
    )
  })
  afterAll(async () => {
    await worker?.stop()
    await api?.close()
  })

  it('counts runs waiting for workers in the store, refuses past the bound, and accepts again once workers drain it', async () => {
    // A delay first: runs of pure nodes alone would end at admission, in the API process.
    const w = await createLive(api, {
      definition: linear(
        { pause: { type: 'delay', payload: { delayMs: 10 } }, say: { type: 'log', payload: { message: 'hi' } } },
        ['pause', 'say'],
      ),
    })
    const accepted = []
    for (let i = 0; i < 2; i++) {
      const r = await webhook(api, w.triggerSecret, i)
      expect(r.status).toBe(200)
      accepted.push(r.body.data.runIds[0])
    }
    const refused = await webhook(api, w.triggerSecret, 2)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).not.toBeNull()
    // Still refused after the store is read again: the runs are there, not started.
    await backlogReadAgain(api.system.store)
    expect((await webhook(api, w.triggerSecret, 3)).status).toBe(429)
    expect((await api.call('GET', '/readyz', { key: null })).body.backlog).toMatchObject({
      total: 2,
      max: 4,
      perOrganizationMax: 2,
    })

    worker = await api.openSibling({}, { role: 'worker' })
    for (const runId of accepted) expect((await waitForRun(api, runId, undefined, 20_000)).status).toBe('success')
    let again
    await until(
      async () => (again = await webhook(api, w.triggerSecret, 4)).status === 200,
      'admission to open again',
      10_000,
    )
    expect((await waitForRun(api, again!.body.data.runIds[0], undefined, 20_000)).status).toBe('success')
  })
})
