/** The event-source webhook and the organization's webhook secret, on real stores. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { waitForRun } from '../helpers/workflows.ts'
import {
  expectRefused,
  OTHER_WALLET,
  postSource,
  runCount,
  transfer,
  triggered,
  WALLET,
  webhookSecret,
} from './helpers.ts'

for (const kind of storeKinds()) {
  describe(`the event-source webhook (${kind})`, () => {
    let t: TestSystem
    let secret: string
    let receiving: string
    beforeAll(async () => {
      t = await openTestSystem(kind)
      secret = await webhookSecret(t)
      receiving = (
        await triggered(
          t,
          'erc20-receive',
          { chainId: 1, address: WALLET, minAmount: '100' },
          'in {{$trigger.body.amount}}',
        )
      ).id
    })
    afterAll(() => t.close())

    it('shows the webhook secret to owners only, the same on every read, and regenerates it', async () => {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/)
      expect(await webhookSecret(t)).toBe(secret)
      const stored = await t.system.store.get<{ webhook_secret: string }>(
        'SELECT webhook_secret FROM organizations WHERE id = $1',
        [t.orgId],
      )
      expect(stored!.webhook_secret).not.toContain(secret)
      const reader = (await t.call('POST', '/v1/api-keys', { body: { name: 'reader', scope: 'read' } })).body.data.key
      const denied = await t.call('GET', `/v1/organizations/${t.orgId}/webhook-secret`, { key: reader })
      expect(denied.status).toBe(403)
      const other = await t.newOrganization(`secret-other-${kind}`)
      expect((await t.call('GET', `/v1/organizations/${other.orgId}/webhook-secret`)).status).toBe(404)
      expect((await t.call('POST', `/v1/organizations/${other.orgId}/webhook-secret/regenerate`)).status).toBe(404)

      const org = await t.newOrganization(`secret-rotate-${kind}`)
      const old = await webhookSecret(t, org.orgId, org.key)
      const renewed = await t.call('POST', `/v1/organizations/${org.orgId}/webhook-secret/regenerate`, { key: org.key })
      expect(renewed.status).toBe(200)
      expect(renewed.body.data.webhookSecret).not.toBe(old)
      const event = { id: 'rot-1', type: 'erc20-receive', data: transfer(WALLET, '500') }
      expect((await postSource(t, org.orgId, old, event)).status).toBe(401)
      expect((await postSource(t, org.orgId, renewed.body.data.webhookSecret, event)).status).toBe(200)
    })

    it('starts the live workflows whose trigger matches the event, and only those', async () => {
      const r = await postSource(t, t.orgId, secret, {
        id: 'src-1',
        type: 'erc20-receive',
        data: transfer(WALLET, '500'),
      })
      expect(r.status).toBe(200)
      expect(r.body.action).toBe('triggered')
      const run = await waitForRun(t, r.body.runIds[0])
      expect(run.workflowId).toBe(receiving)
      expect(run.nodes.say.result.message).toBe('in 500')
      expect(
        (
          await postSource(t, t.orgId, secret, {
            id: 'src-2',
            type: 'erc20-receive',
            data: transfer(OTHER_WALLET, '500'),
          })
        ).body,
      ).toMatchObject({ action: 'skipped', reason: 'no_matching_workflow', runIds: [] })
      expect(
        (await postSource(t, t.orgId, secret, { id: 'src-3', type: 'erc20-receive', data: transfer(WALLET, '99') }))
          .body.reason,
      ).toBe('no_matching_workflow')
    })

    it('refuses a missing or wrong secret with 401 and an unknown organization with 404, starting nothing', async () => {
      const before = await runCount(t)
      const event = { id: 'src-bad', type: 'erc20-receive', data: transfer(WALLET, '500') }
      await expectRefused(
        t,
        await postSource(t, t.orgId, null, event),
        401,
        /secret query parameter is required/,
        before,
      )
      await expectRefused(
        t,
        await postSource(t, t.orgId, `${secret}x`, event),
        401,
        /not the organization's webhook secret/,
        before,
      )
      await expectRefused(t, await postSource(t, 'org_unknown', secret, event), 404, /organization not found/, before)
      const fresh = await t.newOrganization(`no-secret-${kind}`)
      await expectRefused(t, await postSource(t, fresh.orgId, secret, event), 401, /no webhook secret yet/, before)
    })

    it('refuses a malformed envelope with 400 naming the problem', async () => {
      const before = await runCount(t)
      await expectRefused(
        t,
        await postSource(t, t.orgId, secret, { type: 'erc20-receive', data: {} }),
        400,
        /id must be a string/,
        before,
      )
      await expectRefused(
        t,
        await postSource(t, t.orgId, secret, { id: 'x', type: 'chatapp-mentions', data: {} }),
        400,
        /type must be one of/,
        before,
      )
      await expectRefused(
        t,
        await postSource(t, t.orgId, secret, { id: 'x', type: 'erc20-receive', data: [] }),
        400,
        /data must be an object/,
        before,
      )
      await expectRefused(
        t,
        await postSource(t, t.orgId, secret, { id: 'x', type: 'approval', data: { approved: true } }),
        400,
        /must name the run/,
        before,
      )
      await expectRefused(
        t,
        await postSource(t, t.orgId, secret, {
          id: 'x',
          type: 'erc20-receive',
          data: transfer(WALLET, '1'),
          runId: 'run_nope',
        }),
        400,
        /does not exist/,
        before,
      )
    })

    it("stores an event whose data breaks the trigger's schema as skipped, with the problems", async () => {
      const { transactionHash: _, ...broken } = transfer(WALLET, '500')
      const r = await postSource(t, t.orgId, secret, { id: 'src-invalid', type: 'erc20-receive', data: broken })
      expect(r.status).toBe(200)
      expect(r.body).toMatchObject({ action: 'skipped', reason: 'invalid_event' })
      const stored = (await t.call('GET', `/v1/webhook-events/${r.body.eventId}`)).body.data
      expect(stored.problems.length).toBeGreaterThan(0)
      expect(stored.problems[0].path).toBe('/transactionHash')
    })

    it('starts only the workflow an event names', async () => {
      const other = (await triggered(t, 'erc20-receive', { chainId: 1, address: WALLET })).id
      const r = await postSource(t, t.orgId, secret, {
        id: 'src-named',
        type: 'erc20-receive',
        data: transfer(WALLET, '500'),
        workflowId: other,
      })
      expect(r.body.action).toBe('triggered')
      expect(r.body.runIds).toHaveLength(1)
      expect((await waitForRun(t, r.body.runIds[0])).workflowId).toBe(other)
    })
  })
}
