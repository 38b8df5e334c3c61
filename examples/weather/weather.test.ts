/** The weather plugin's tests, written with the test kit only (run: bun test ./examples/weather/weather.test.ts). */
import { describe, expect, it } from 'bun:test'
import { loadPlugin, matchTrigger, matchWait, runAction, runWebhook, sdk, webhookRequest } from 'automaton/testing'
import weather from './weather.ts'

const { plugin } = await loadPlugin(weather)
const alert = plugin.triggers!.find((t) => t.type === 'weather-alert')!
const current = plugin.actions!.find((a) => a.type === 'weather-current')!
const alerts = plugin.webhooks!.find((w) => w.name === 'alerts')!
const connector = {
  baseUrl: 'https://api.weather.example',
  apiKey: 'wk_live_0123456789abcdef',
  webhookSecret: 'whs_0123456789',
}

describe('the weather plugin', () => {
  it('loads as the server loads it', async () => {
    expect(plugin).toMatchObject({ id: 'weather', version: '1.0.0' })
    expect(Object.isFrozen(plugin)).toBe(true)
  })

  it("reads the current weather with the connector's key", async () => {
    const out = await runAction(current, {
      payload: { city: '{{root.result.body.city}}' },
      scope: { root: { result: { body: { city: 'Oslo' } } } },
      connector,
      http: (request) => Response.json({ celsius: request.url.includes('city=Oslo') ? -3 : 0 }),
    })
    expect(out).toMatchObject({ kind: 'result', result: { city: 'Oslo', celsius: -3 } })
    expect(out.requests[0]).toMatchObject({ method: 'GET', url: 'https://api.weather.example/current?city=Oslo' })
    expect(out.requests[0].headers?.authorization).toBe(`Bearer ${connector.apiKey}`)
  })

  it('fails the node when the service fails, without showing the key', async () => {
    const out = await runAction(current, {
      payload: { city: 'Oslo' },
      connector,
      http: (r) => new Response(`denied for ${r.headers?.authorization}`, { status: 403 }),
    })
    expect(out.kind).toBe('failure')
    if (out.kind === 'failure') {
      expect(out.error).toContain('answered 403')
      expect(out.error).not.toContain(connector.apiKey)
    }
  })

  it('needs a connector and a city', async () => {
    expect(await runAction(current, { payload: { city: 'Oslo' } })).toMatchObject({ kind: 'failure' })
    expect(await runAction(current, { payload: {}, connector })).toMatchObject({
      kind: 'failure',
      code: 'invalid_payload',
    })
  })

  it('matches alerts of the configured city at or above the configured level', () => {
    const body = { id: 'a1', city: 'Oslo', level: 'orange', message: 'wind' }
    expect(matchTrigger(alert, { city: 'oslo' }, body)).toBe(true)
    expect(matchTrigger(alert, { city: 'Oslo', minLevel: 'red' }, body)).toBe(false)
    expect(matchTrigger(alert, { city: 'Bergen' }, body)).toBe(false)
    expect(matchWait(alert, { city: 'Oslo' }, body)).toBe(true)
    expect(matchWait(alert, { city: 'Bergen' }, body)).toBe(false)
  })

  it('accepts a signed alert and turns it into one event', async () => {
    const body = { id: 'a1', city: 'Oslo', level: 'red', message: 'storm' }
    const rawBody = JSON.stringify(body)
    const signature = await sdkHmac(connector.webhookSecret, rawBody)
    const out = await runWebhook(
      alerts,
      webhookRequest({ rawBody, headers: { 'X-Weather-Signature': signature }, params: { orgId: 'org_1' } }),
      { connector },
    )
    expect(out.status).toBe(200)
    expect(out.events).toEqual([{ triggerType: 'weather-alert', eventId: 'a1', body }])
  })

  it('refuses a forged signature with 401', async () => {
    const out = await runWebhook(
      alerts,
      { body: { id: 'a1' }, headers: { 'x-weather-signature': 'deadbeef' } },
      { connector },
    )
    expect(out).toMatchObject({ status: 401, verdict: { ok: false, reason: 'bad signature' }, events: [] })
  })

  it('is built with the SDK it was given', () => {
    expect(sdk.version).toBe('1.0')
  })
})

async function sdkHmac(key: string, message: string): Promise<string> {
  const k = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(key),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  return [...new Uint8Array(await crypto.subtle.sign('HMAC', k, new TextEncoder().encode(message)))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('')
}
