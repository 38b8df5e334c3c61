/** The payment provider webhook: signatures, tolerance, connectors, deduplication and routing, on real stores. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { waitForRun } from '../helpers/workflows.ts'
import {
  expectRefused,
  payproviderSignature,
  paymentEvent,
  postPayment,
  runCount,
  triggered,
  unixNow,
} from './helpers.ts'

const SECRET = 'whsec_first_0123456789abcdef'
const ROTATED = 'whsec_second_0123456789abcdef'

for (const kind of storeKinds()) {
  describe(`the payment provider webhook (${kind})`, () => {
    let t: TestSystem
    let connectorId: string
    let workflowId: string
    beforeAll(async () => {
      t = await openTestSystem(kind)
      const c = await t.call('POST', '/v1/connectors', {
        body: { type: 'payprovider', name: 'main', data: { signingSecret: SECRET } },
      })
      connectorId = c.body.data.id
      workflowId = (
        await triggered(
          t,
          'payprovider-payment-receive',
          { minAmount: 1000, currency: 'USD' },
          'paid {{$trigger.body.data.object.amount}}',
        )
      ).id
    })
    afterAll(() => t.close())

    it('starts the matching workflow with the event as {{$trigger.body}}, answering the Webhook result without the envelope', async () => {
      const r = await postPayment(t, t.orgId, paymentEvent('evt_pay_1', 2500), [SECRET])
      expect(r.status).toBe(200)
      const { action, eventId, runIds } = r.body
      expect(Object.keys(r.body).sort()).toEqual(['action', 'eventId', 'runIds'])
      expect(action).toBe('triggered')
      expect(eventId).toMatch(/^evt_/)
      expect(runIds).toHaveLength(1)
      const run = await waitForRun(t, runIds[0])
      expect(run).toMatchObject({
        status: 'success',
        workflowId,
        triggeredBy: 'integration',
        triggerType: 'payprovider-payment-receive',
        eventId,
      })
      expect(run.nodes.say.result.message).toBe('paid 2500')
    })

    it('skips payments the trigger does not match, and event types that are not payments', async () => {
      const small = await postPayment(t, t.orgId, paymentEvent('evt_pay_small', 10), [SECRET])
      expect(small.body).toMatchObject({ action: 'skipped', reason: 'no_matching_workflow', runIds: [] })
      const other = await postPayment(
        t,
        t.orgId,
        { id: 'evt_cust_1', type: 'customer.created', created: unixNow(), data: { object: { id: 'cus_1' } } },
        [SECRET],
      )
      expect(other.status).toBe(200)
      expect(other.body).toMatchObject({ action: 'skipped', reason: 'no_events', runIds: [] })
    })

    it('accepts any one of several v1 signatures (a secret being rotated)', async () => {
      const before = await runCount(t)
      const r = await postPayment(t, t.orgId, paymentEvent('evt_pay_rotate'), [ROTATED, SECRET])
      expect(r.body.action).toBe('triggered')
      expect(await runCount(t)).toBe(before + 1)
    })

    it('refuses a missing, malformed or forged signature and a stale timestamp with 401, starting nothing', async () => {
      const before = await runCount(t)
      const event = paymentEvent('evt_pay_forged')
      await expectRefused(
        t,
        await postPayment(t, t.orgId, event, [], { header: '' }),
        401,
        /Payprovider-Signature header is missing/,
        before,
      )
      await expectRefused(
        t,
        await postPayment(t, t.orgId, event, [], { header: 't=abc,v1=zz' }),
        401,
        /needs t=/,
        before,
      )
      await expectRefused(
        t,
        await postPayment(t, t.orgId, event, ['whsec_wrong_0123456789']),
        401,
        /no v1 signature matches/,
        before,
      )
      await expectRefused(
        t,
        await postPayment(t, t.orgId, event, [SECRET], { timestamp: unixNow() - 301 }),
        401,
        /300 seconds/,
        before,
      )
      await expectRefused(
        t,
        await postPayment(t, t.orgId, event, [SECRET], { timestamp: unixNow() + 400 }),
        401,
        /300 seconds/,
        before,
      )
      // Signed over other bytes than those sent.
      const header = await payproviderSignature([SECRET], JSON.stringify({ ...event, id: 'other' }))
      await expectRefused(
        t,
        await postPayment(t, t.orgId, event, [], { header }),
        401,
        /no v1 signature matches/,
        before,
      )
      expect((await t.call('GET', '/v1/webhook-events?providerEventId=evt_pay_forged')).body.data.items).toEqual([])
    })

    it('refuses a malformed body with 400 once the signature holds', async () => {
      const before = await runCount(t)
      await expectRefused(
        t,
        await postPayment(t, t.orgId, { type: 'charge.succeeded', data: { object: {} } }, [SECRET]),
        400,
        /needs an id/,
        before,
      )
      await expectRefused(
        t,
        await postPayment(t, t.orgId, { id: 'x', type: 'charge.succeeded' }, [SECRET]),
        400,
        /data.object/,
        before,
      )
      const rawBody = '{"id": "broken'
      const r = await t.call('POST', `/v1/orgs/${t.orgId}/integrations/payprovider`, {
        key: null,
        rawBody,
        headers: {
          'content-type': 'application/json',
          'payprovider-signature': await payproviderSignature([SECRET], rawBody),
        },
      })
      await expectRefused(t, r, 400, /not valid JSON/, before)
    })

    it('answers a repeated delivery as a duplicate with the first eventId and runIds, also when both arrive at once', async () => {
      const first = await postPayment(t, t.orgId, paymentEvent('evt_pay_twice'), [SECRET])
      const again = await postPayment(t, t.orgId, paymentEvent('evt_pay_twice'), [SECRET])
      expect(again.body).toEqual({
        action: 'skipped',
        eventId: first.body.eventId,
        reason: 'duplicate',
        runIds: first.body.runIds,
      })

      const before = await runCount(t, workflowId)
      const event = paymentEvent('evt_pay_concurrent')
      const answers = await Promise.all(Array.from({ length: 6 }, () => postPayment(t, t.orgId, event, [SECRET])))
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200])
      expect(answers.filter((a) => a.body.action === 'triggered')).toHaveLength(1)
      expect(answers.filter((a) => a.body.reason === 'duplicate')).toHaveLength(5)
      expect(new Set(answers.map((a) => a.body.eventId)).size).toBe(1)
      expect(new Set(answers.map((a) => JSON.stringify(a.body.runIds))).size).toBe(1)
      expect(await runCount(t, workflowId)).toBe(before + 1)
    })

    it('answers 404 for an unknown organization and 401 for an organization without a connector', async () => {
      const before = await runCount(t)
      await expectRefused(
        t,
        await postPayment(t, 'org_doesnotexist', paymentEvent('evt_x'), [SECRET]),
        404,
        /organization not found/,
        before,
      )
      const other = await t.newOrganization(`no-connector-${kind}`)
      await expectRefused(
        t,
        await postPayment(t, other.orgId, paymentEvent('evt_x'), [SECRET]),
        401,
        /no payprovider connector/,
        before,
      )
    })

    it('verifies with each connector of the organization, or the one ?secret= names; a trigger naming a connector hears only it', async () => {
      const org = await t.newOrganization(`two-accounts-${kind}`)
      const make = async (name: string, signingSecret: string) =>
        (
          await t.call('POST', '/v1/connectors', {
            key: org.key,
            body: { type: 'payprovider', name, data: { signingSecret } },
          })
        ).body.data.id as string
      const a = await make('a', 'whsec_account_a_0123456789')
      const b = await make('b', 'whsec_account_b_0123456789')
      const onlyB = (await triggered(t, 'payprovider-payment-receive', {}, 'b', { connector: { id: b } }, org.key)).id
      const any = (await triggered(t, 'payprovider-payment-receive', {}, 'any', {}, org.key)).id

      const viaA = await postPayment(t, org.orgId, paymentEvent('evt_two_1'), ['whsec_account_a_0123456789'])
      expect(viaA.body.action).toBe('triggered')
      expect(viaA.body.runIds).toHaveLength(1)
      const viaB = await postPayment(t, org.orgId, paymentEvent('evt_two_2'), ['whsec_account_b_0123456789'])
      expect(viaB.body.runIds).toHaveLength(2)
      expect(await runCount(t, onlyB)).toBe(1)
      expect(await runCount(t, any)).toBe(2)

      const stored = (await t.call('GET', `/v1/webhook-events/${viaB.body.eventId}`, { key: org.key })).body.data
      expect(stored).toMatchObject({
        source: 'payprovider',
        providerEventId: 'evt_two_2',
        connectorId: b,
        action: 'triggered',
      })
      expect(stored.workflowIds.sort()).toEqual([onlyB, any].sort())

      const named = await postPayment(t, org.orgId, paymentEvent('evt_two_3'), ['whsec_account_b_0123456789'], {
        query: `?secret=${a}`,
      })
      expect(named.status).toBe(401)
      const right = await postPayment(t, org.orgId, paymentEvent('evt_two_3'), ['whsec_account_b_0123456789'], {
        query: `?secret=${b}`,
      })
      expect(right.body.action).toBe('triggered')
      expect(
        (
          await postPayment(t, org.orgId, paymentEvent('evt_two_4'), ['whsec_account_a_0123456789'], {
            query: '?secret=con_unknown',
          })
        ).body.message,
      ).toMatch(/no payprovider connector con_unknown/)
      void connectorId
    })
  })
}
