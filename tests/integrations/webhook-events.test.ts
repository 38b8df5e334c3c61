/** Received events: listing with filters and pages, reading, replaying, and each organization seeing only its own. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { waitForRun } from '../helpers/workflows.ts'
import { as, OTHER_WALLET, postSource, runCount, transfer, triggered, WALLET, webhookSecret } from './helpers.ts'

for (const kind of storeKinds()) {
  describe(`received webhook events (${kind})`, () => {
    let t: TestSystem
    let secret: string
    let workflowId: string
    const received: Array<{ eventId: string; runIds: string[] }> = []
    beforeAll(async () => {
      t = await openTestSystem(kind)
      secret = await webhookSecret(t)
      workflowId = (await triggered(t, 'erc20-receive', { chainId: 1, address: WALLET })).id
      for (const [i, to] of [WALLET, OTHER_WALLET, WALLET].entries()) {
        received.push(
          (
            await postSource(t, t.orgId, secret, {
              id: `list-${i}`,
              type: 'erc20-receive',
              data: transfer(to, `${i + 1}00`),
            })
          ).body,
        )
      }
    })
    afterAll(() => t.close())

    it('lists received events newest first, with what each did, paginated and filtered', async () => {
      const all = (await t.call('GET', '/v1/webhook-events')).body.data
      expect(all.items.map((e: any) => e.providerEventId)).toEqual(['list-2', 'list-1', 'list-0'])
      expect(all).toMatchObject({ hasMore: false, limit: 20, offset: 0 })
      const [newest] = all.items
      expect(newest).toMatchObject({
        id: received[2].eventId,
        organizationId: t.orgId,
        source: 'eventsource',
        triggerType: 'erc20-receive',
        connectorId: '',
        target: null,
        body: transfer(WALLET, '300'),
        headers: {},
        action: 'triggered',
        reason: '',
        problems: [],
        runIds: received[2].runIds,
        workflowIds: [workflowId],
        replayOf: '',
      })
      expect(newest.receivedAt).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/)
      const page = (await t.call('GET', '/v1/webhook-events?limit=2&offset=1')).body.data
      expect(page).toMatchObject({ hasMore: false, limit: 2, offset: 1 })
      expect(page.items.map((e: any) => e.providerEventId)).toEqual(['list-1', 'list-0'])
      expect((await t.call('GET', '/v1/webhook-events?limit=1')).body.data.hasMore).toBe(true)
      const skipped = (await t.call('GET', '/v1/webhook-events?action=skipped')).body.data.items
      expect(skipped.map((e: any) => [e.providerEventId, e.reason])).toEqual([['list-1', 'no_matching_workflow']])
      const byRun = (await t.call('GET', `/v1/webhook-events?runId=${received[0].runIds[0]}`)).body.data.items
      expect(byRun.map((e: any) => e.id)).toEqual([received[0].eventId])
      expect((await t.call('GET', `/v1/webhook-events?workflowId=${workflowId}`)).body.data.items).toHaveLength(2)
      expect((await t.call('GET', '/v1/webhook-events?source=payprovider')).body.data.items).toEqual([])
      expect((await t.call('GET', '/v1/webhook-events?limit=500')).status).toBe(400)
      expect((await t.call('GET', '/v1/webhook-events?action=exploded')).status).toBe(400)
    })

    it('replays an event as a new one linked to the original, starting a new run', async () => {
      const before = await runCount(t, workflowId)
      const r = await t.call('POST', `/v1/webhook-events/${received[0].eventId}/replay`)
      expect(r.status).toBe(200)
      expect(r.body.data).toMatchObject({ action: 'triggered' })
      expect(r.body.data.eventId).not.toBe(received[0].eventId)
      expect(r.body.data.runIds[0]).not.toBe(received[0].runIds[0])
      const run = await waitForRun(t, r.body.data.runIds[0])
      expect(run.eventId).toBe(r.body.data.eventId)
      expect(await runCount(t, workflowId)).toBe(before + 1)
      const replay = (await t.call('GET', `/v1/webhook-events/${r.body.data.eventId}`)).body.data
      expect(replay).toMatchObject({ replayOf: received[0].eventId, providerEventId: 'list-0', action: 'triggered' })
      // A replay is never a duplicate; the provider's own second delivery still is.
      expect((await t.call('POST', `/v1/webhook-events/${received[0].eventId}/replay`)).body.data.action).toBe(
        'triggered',
      )
      expect(
        (await postSource(t, t.orgId, secret, { id: 'list-0', type: 'erc20-receive', data: transfer(WALLET, '100') }))
          .body.reason,
      ).toBe('duplicate')
    })

    it('keeps organizations apart and asks for run:read to list, workflow:execute to replay', async () => {
      const other = await t.newOrganization(`events-other-${kind}`)
      const elsewhere = as(t, other)
      expect((await elsewhere.call('GET', '/v1/webhook-events')).body.data.items).toEqual([])
      expect((await elsewhere.call('GET', `/v1/webhook-events/${received[0].eventId}`)).status).toBe(404)
      const replay = await elsewhere.call('POST', `/v1/webhook-events/${received[0].eventId}/replay`)
      expect(replay.status).toBe(404)
      expect(replay.body).toMatchObject({ code: 404, message: 'webhook event not found' })
      // Another organization's secret does not open this one's endpoint.
      expect(
        (
          await postSource(t, t.orgId, await webhookSecret(elsewhere, other.orgId), {
            id: 'x',
            type: 'erc20-receive',
            data: transfer(WALLET, '1'),
          })
        ).status,
      ).toBe(401)

      const reader = (await t.call('POST', '/v1/api-keys', { body: { name: 'reader', scope: 'read' } })).body.data.key
      expect((await t.call('GET', '/v1/webhook-events', { key: reader })).status).toBe(200)
      expect((await t.call('POST', `/v1/webhook-events/${received[0].eventId}/replay`, { key: reader })).status).toBe(
        403,
      )
      expect((await t.call('GET', '/v1/webhook-events', { key: null })).status).toBe(401)
    })
  })
}
