/** The built-in integration webhooks with the plugin test kit: verification and the events each request becomes, without a server. */
import { describe, expect, it } from 'bun:test'
import { answerWebhook, runWebhook, webhookRequest } from '../../runtime/testing/index.ts'
import chatapp from '../../plugins/chatapp/index.ts'
import crosschain from '../../plugins/crosschain/index.ts'
import eventsource from '../../plugins/eventsource/index.ts'
import payprovider from '../../plugins/payprovider/index.ts'
import { parseSignature } from '../../plugins/payprovider/webhook.ts'
import { defineWebhook } from '../../core/plugin/sdk.ts'
import { integrationRoutes, routeShape } from '../../core/http/routes/integrations.ts'
import type { WebhookIntake } from '../../core/services/webhook-intake.ts'
import { chatappHeaders, payproviderSignature, paymentEvent } from '../integrations/helpers.ts'

const NOW = Date.parse('2030-01-01T00:00:00Z')
const SECONDS = NOW / 1000
const [payHook] = payprovider.webhooks!
const [chatHook] = chatapp.webhooks!
const [sourceHook] = eventsource.webhooks!
const [crossHook] = crosschain.webhooks!

describe('the built-in integration webhooks', () => {
  it('payprovider: reads every v1 of a signature header and checks the timestamp against the clock', async () => {
    expect(parseSignature(`t=1,v1=${'a'.repeat(64)},v0=${'b'.repeat(64)},v1=${'C'.repeat(64)}`)).toEqual({
      timestamp: 1,
      signatures: ['a'.repeat(64), 'c'.repeat(64)],
    })
    expect(parseSignature('v1=abc')).toBeNull()
    const body = paymentEvent('evt_kit', 100)
    const rawBody = JSON.stringify(body)
    const signed = webhookRequest({
      rawBody,
      headers: { 'Payprovider-Signature': await payproviderSignature(['s1', 's2'], rawBody, SECONDS) },
    })
    const out = await runWebhook(payHook, signed, { connector: { signingSecret: 's2' }, now: NOW })
    expect(out.events).toEqual([{ triggerType: 'payprovider-payment-receive', eventId: 'evt_kit', body }])
    expect((await runWebhook(payHook, signed, { connector: { signingSecret: 's2' }, now: NOW + 301_000 })).status).toBe(
      401,
    )
  })

  it('chatapp: answers the URL check and routes events by team', async () => {
    const check = JSON.stringify({ type: 'url_verification', challenge: 'abc' })
    const out = await runWebhook(
      chatHook,
      webhookRequest({ rawBody: check, headers: await chatappHeaders('k', check, SECONDS) }),
      { secret: 'k', now: NOW },
    )
    expect(out.respond).toEqual({ status: 200, body: { challenge: 'abc' } })
    const event = JSON.stringify({
      type: 'event_callback',
      team_id: 'T1',
      event_id: 'Ev1',
      event: { type: 'app_mention', channel: 'C1', user: 'U1', text: 'hi', ts: '1.1' },
    })
    const mention = await runWebhook(
      chatHook,
      webhookRequest({ rawBody: event, headers: await chatappHeaders('k', event, SECONDS) }),
      { secret: 'k', now: NOW },
    )
    expect(mention.events).toEqual([
      {
        triggerType: 'chatapp-mentions',
        eventId: 'Ev1',
        route: { connectorType: 'chatapp', data: { teamId: 'T1' } },
        body: { teamId: 'T1', channelId: 'C1', userId: 'U1', text: 'hi', ts: '1.1' },
      },
    ])
  })

  it('eventsource: takes the organization secret from the query and targets a named run', async () => {
    const body = { id: 'e1', type: 'approval', runId: 'run_01ABC', data: { approved: true } }
    const out = await runWebhook(sourceHook, { body, query: { secret: 's' } }, { secret: 's' })
    expect(out.events).toEqual([
      { triggerType: 'approval', eventId: 'e1', body: { approved: true }, target: { runId: 'run_01ABC' } },
    ])
    expect((await runWebhook(sourceHook, { body, query: { secret: 'x' } }, { secret: 's' })).status).toBe(401)
  })

  it('crosschain: answers { executionId, runId } from the routing result', () => {
    expect(answerWebhook(crossHook, { action: 'resumed', eventId: 'evt_1', runIds: ['run_1'] }).body).toEqual({
      executionId: 'evt_1',
      runId: 'run_1',
      action: 'resumed',
    })
    expect(
      answerWebhook(crossHook, { action: 'skipped', eventId: 'evt_2', reason: 'duplicate', runIds: [] }).body,
    ).toEqual({ executionId: 'evt_2', runId: '', action: 'skipped', reason: 'duplicate' })
  })
})

describe('mounting plugin webhooks', () => {
  it('refuses a webhook path that is a route of the server', () => {
    const webhook = defineWebhook({
      name: 'sneaky',
      description: '',
      path: '/v1/webhooks/:token',
      auth: { kind: 'none' },
      verify: () => ({ ok: true }),
      receive: () => ({ events: [] }),
    })
    const taken = new Set([routeShape('/v1/webhooks/:workflowSecret')])
    expect(() => integrationRoutes([{ pluginId: 'sneaky', webhook }], {} as WebhookIntake, taken)).toThrow(
      'POST /v1/webhooks/:token is a route of the server',
    )
  })
})
