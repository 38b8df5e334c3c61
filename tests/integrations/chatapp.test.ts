/** The chat platform events webhook: signatures, the URL check, team routing to organizations, deduplication. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { storeKinds } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { waitForRun } from '../helpers/workflows.ts'
import { as, chatappHeaders, expectRefused, postChat, runCount, triggered, unixNow } from './helpers.ts'

const SIGNING = 'chat_signing_secret_0123456789'

const message = (eventId: string, teamId: string, text: string, extra: Record<string, unknown> = {}) => ({
  type: 'event_callback',
  team_id: teamId,
  event_id: eventId,
  event_time: unixNow(),
  event: {
    type: 'message',
    channel: 'C1',
    channel_type: 'channel',
    user: 'U1',
    text,
    ts: `${unixNow()}.000100`,
    ...extra,
  },
})

for (const kind of storeKinds()) {
  describe(`the chat platform webhook (${kind})`, () => {
    let t: TestSystem
    let a: { orgId: string; key: string }
    let b: { orgId: string; key: string }
    const listeners: Record<string, string> = {}
    beforeAll(async () => {
      t = await openTestSystem(kind, { AUTOMATON_CHATAPP_SIGNING_SECRET: SIGNING })
      a = { orgId: t.orgId, key: t.key }
      b = await t.newOrganization(`chat-b-${kind}`)
      const c = await t.newOrganization(`chat-c-${kind}`)
      for (const [org, teamId] of [
        [a, 'T1'],
        [b, 'T1'],
        [c, 'T2'],
      ] as const) {
        await t.call('POST', '/v1/connectors', {
          key: org.key,
          body: { type: 'chatapp', name: 'team', data: { teamId, botToken: 'xoxb-0123456789-abcdef' } },
        })
        listeners[org.orgId] = (
          await triggered(t, 'chatapp-new-message-in-channels', {}, 'said {{$trigger.body.text}}', {}, org.key)
        ).id
      }
    })
    afterAll(() => t.close())

    it("answers the platform's URL check with its challenge, once signed", async () => {
      const check = { type: 'url_verification', challenge: 'c-3f1a9', token: 'legacy' }
      const r = await postChat(t, check, SIGNING)
      expect(r.status).toBe(200)
      expect(r.body).toEqual({ challenge: 'c-3f1a9' })
      expect((await postChat(t, check, 'not-the-secret')).status).toBe(401)
    })

    it("routes a team's event to every organization that installed the app in that team", async () => {
      const r = await postChat(t, message('Ev100', 'T1', 'hello team'), SIGNING)
      expect(r.status).toBe(200)
      expect(r.body.action).toBe('triggered')
      expect(r.body.runIds).toHaveLength(2)
      const runs = await Promise.all(
        r.body.runIds.map((id: string) =>
          t.system.store.get<{ workflow_id: string; organization_id: string }>(
            'SELECT workflow_id, organization_id FROM runs WHERE id = $1',
            [id],
          ),
        ),
      )
      expect(runs.map((x) => x!.workflow_id).sort()).toEqual([listeners[a.orgId], listeners[b.orgId]].sort())
      const mine = runs.find((x) => x!.organization_id === a.orgId)!
      const done = await waitForRun(t, r.body.runIds[runs.indexOf(mine)])
      expect(done.nodes.say.result.message).toBe('said hello team')
      // Each organization sees its own stored event, not the other's.
      const listA = (await t.call('GET', '/v1/webhook-events?source=chatapp&providerEventId=Ev100', { key: a.key }))
        .body.data.items
      const listB = (await t.call('GET', '/v1/webhook-events?source=chatapp&providerEventId=Ev100', { key: b.key }))
        .body.data.items
      expect(listA.map((e: any) => e.organizationId)).toEqual(listA.map(() => a.orgId))
      expect(listB.map((e: any) => e.organizationId)).toEqual(listB.map(() => b.orgId))
      expect(listA.map((e: any) => e.triggerType).sort()).toEqual([
        'chatapp-new-keyword-mention',
        'chatapp-new-message-in-channels',
      ])

      const again = await postChat(t, message('Ev100', 'T1', 'hello team'), SIGNING)
      expect(again.body).toMatchObject({ action: 'skipped', reason: 'duplicate' })
      expect([...again.body.runIds].sort()).toEqual([...r.body.runIds].sort())
      expect((await postChat(t, message('Ev101', 'T9', 'nobody home'), SIGNING)).body).toMatchObject({
        action: 'skipped',
        reason: 'no_organization',
        runIds: [],
      })
    })

    it('turns mentions, keywords, reactions and button clicks into their trigger types', async () => {
      const keyword = (await triggered(t, 'chatapp-new-keyword-mention', { keywords: ['Deploy'] }, 'kw', {}, b.key)).id
      const mention = (
        await triggered(
          t,
          'chatapp-new-user-mention',
          { userIds: ['U42'] },
          'm {{$trigger.body.mentionedUserIds.0}}',
          {},
          b.key,
        )
      ).id
      const click = (
        await triggered(
          t,
          'chatapp-new-interaction-event',
          { actionIds: ['approve'] },
          'clicked {{$trigger.body.value}}',
          {},
          b.key,
        )
      ).id
      const reaction = (await triggered(t, 'chatapp-new-reaction-added', { reaction: 'rocket' }, 'r', {}, b.key)).id
      await postChat(t, message('Ev200', 'T1', 'please deploy now, <@U42>'), SIGNING)
      await postChat(
        t,
        {
          type: 'event_callback',
          team_id: 'T1',
          event_id: 'Ev201',
          event: {
            type: 'reaction_added',
            user: 'U1',
            reaction: 'rocket',
            item: { type: 'message', channel: 'C1', ts: '1.2' },
            event_ts: '1.3',
          },
        },
        SIGNING,
      )
      const payload = {
        type: 'block_actions',
        team: { id: 'T1' },
        user: { id: 'U1' },
        trigger_id: 'trig-1',
        channel: { id: 'C1' },
        actions: [{ action_id: 'approve', value: 'yes', action_ts: '1.4' }],
      }
      const form = `payload=${encodeURIComponent(JSON.stringify(payload))}`
      const clicked = await postChat(t, form, SIGNING, { contentType: 'application/x-www-form-urlencoded' })
      expect(clicked.body.action).toBe('triggered')
      expect(await runCount(t, keyword)).toBe(1)
      expect(await runCount(t, mention)).toBe(1)
      expect(await runCount(t, reaction)).toBe(1)
      const clickRun = await waitForRun(as(t, b), clicked.body.runIds[0])
      expect(clickRun.workflowId).toBe(click)
      expect(clickRun.nodes.say.result.message).toBe('clicked yes')
    })

    it('refuses unsigned, forged and stale requests with 401, starting nothing', async () => {
      const before = await runCount(t)
      const body = JSON.stringify(message('Ev300', 'T1', 'sneaky'))
      const call = (headers: Record<string, string>) =>
        t.call('POST', '/v1/integrations/chatapp/events', {
          key: null,
          rawBody: body,
          headers: { 'content-type': 'application/json', ...headers },
        })
      await expectRefused(t, await call({}), 401, /X-Chatapp-Request-Timestamp/, before)
      await expectRefused(
        t,
        await call({ 'x-chatapp-request-timestamp': String(unixNow()) }),
        401,
        /X-Chatapp-Signature/,
        before,
      )
      await expectRefused(t, await call(await chatappHeaders('wrong-secret', body)), 401, /does not match/, before)
      await expectRefused(t, await call(await chatappHeaders(SIGNING, body, unixNow() - 301)), 401, /5 minutes/, before)
      // Signed, then changed on the way.
      const headers = await chatappHeaders(SIGNING, body)
      await expectRefused(
        t,
        await t.call('POST', '/v1/integrations/chatapp/events', {
          key: null,
          rawBody: body.replace('sneaky', 'changed'),
          headers: { 'content-type': 'application/json', ...headers },
        }),
        401,
        /does not match/,
        before,
      )
    })

    it('skips a signed request with an empty body, starting nothing', async () => {
      const before = await runCount(t)
      const empty = await postChat(t, '', SIGNING)
      expect(empty.status).toBe(200)
      expect(empty.body).toMatchObject({ action: 'skipped', reason: 'no_events', runIds: [] })
      expect(await runCount(t)).toBe(before)
    })

    it("pauses a team's workflows with invalid_chat when the app is uninstalled, and checks connectors again on resume", async () => {
      const team = `TU-${kind}`
      const org = await t.newOrganization(`chat-uninstall-${kind}`)
      const connector = (
        await t.call('POST', '/v1/connectors', {
          key: org.key,
          body: { type: 'chatapp', name: 'team', data: { teamId: team, botToken: 'xoxb-0123456789-uninstall' } },
        })
      ).body.data
      // The trigger names its connector, so that resuming has something to check.
      const w = (
        await triggered(t, 'chatapp-new-message-in-channels', {}, 'said', { connector: { id: connector.id } }, org.key)
      ).id
      const gone = await postChat(
        t,
        { type: 'event_callback', team_id: team, event_id: `EvU-${kind}`, event: { type: 'app_uninstalled' } },
        SIGNING,
      )
      expect(gone.status).toBe(200)
      expect(gone.body).toMatchObject({ action: 'skipped', reason: 'connector_revoked', runIds: [] })
      const live = (await t.call('GET', `/v1/workflows/${w}/live`, { key: org.key })).body.data
      expect(live).toMatchObject({ status: 'paused', pausedReason: 'invalid_chat' })
      // Other teams' workflows are untouched.
      expect((await t.call('GET', `/v1/workflows/${listeners[a.orgId]}/live`)).body.data.status).toBe('active')
      // While paused, the team's messages start nothing.
      expect((await postChat(t, message(`EvU2-${kind}`, team, 'anyone?'), SIGNING)).body.action).toBe('skipped')
      // Resuming checks the connectors the workflow names: a deleted one keeps it paused, a new one lets it run.
      await t.system.store.write((tx) => tx.run('DELETE FROM connectors WHERE id = $1', [connector.id]))
      const refused = await t.call('POST', `/v1/workflows/${w}/resume`, { key: org.key })
      expect(refused.status).toBe(400)
      expect(refused.body.message).toContain('connectors')
      expect((await t.call('GET', `/v1/workflows/${w}/live`, { key: org.key })).body.data.pausedReason).toBe(
        'invalid_chat',
      )
    })

    it('refuses every request while the operator has not set the signing secret', async () => {
      const unset = await t.openSibling({ AUTOMATON_CHATAPP_SIGNING_SECRET: '' })
      try {
        const before = await runCount(t)
        await expectRefused(
          unset,
          await postChat(unset, message('Ev400', 'T1', 'hi'), SIGNING),
          401,
          /AUTOMATON_CHATAPP_SIGNING_SECRET/,
          before,
        )
      } finally {
        await unset.stop()
      }
    })
  })
}
