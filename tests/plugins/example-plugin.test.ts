/**
 * The example plugin (examples/weather) loaded from AUTOMATON_PLUGINS_DIR and run in a workflow:
 * on Bun in-process, and on Deno as a real server process (Deno runs on Postgres).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { api, DENO, ROOT, startServer } from '../helpers/process.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { freshPostgresUrl, TEST_DATABASE_URL, warnSkipped } from '../helpers/services.ts'
import { openTestSystem, type TestSystem } from '../helpers/system.ts'
import { tempDir } from '../helpers/tmp.ts'
import { createWorkflow, linear, runAndWait, waitForRun } from '../helpers/workflows.ts'
import { hmacSha256, toHex } from '../../core/security/hash.ts'

const EXAMPLE_DIR = join(ROOT, 'examples', 'weather')
const API_KEY = 'wk_live_example_0123456789'

const workflow = (connectorId: string) => ({
  name: 'weather now',
  definition: linear(
    { now: { type: 'weather-current', connector: { id: connectorId }, payload: { city: '{{$trigger.body.city}}' } } },
    ['now'],
  ),
})

function weatherService(receiver: Receiver) {
  receiver.respond((req) =>
    req.headers.authorization === `Bearer ${API_KEY}`
      ? Response.json({ celsius: 21.5 })
      : new Response('no', { status: 401 }),
  )
}

describe('the example plugin on Bun', () => {
  let t: TestSystem
  let receiver: Receiver
  beforeAll(async () => {
    receiver = startReceiver()
    weatherService(receiver)
    t = await openTestSystem('sqlite', {
      AUTOMATON_PLUGINS_DIR: EXAMPLE_DIR,
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    })
  })
  afterAll(async () => {
    await t.close()
    await receiver.stop()
  })

  it('is in the catalog with its trigger, action, connector type and webhook', async () => {
    expect((await t.call('GET', '/v1/triggers/weather-alert')).body.data).toMatchObject({
      platform: 'weather',
      createdBy: 'Example Weather',
      connector: { type: 'weather' },
    })
    expect((await t.call('GET', '/v1/actions/weather-current')).body.data).toMatchObject({
      plugin: 'weather',
      connector: { type: 'weather' },
    })
    expect((await t.call('GET', '/v1/connector-types/weather')).body.data.secretFields).toEqual([
      'apiKey',
      'webhookSecret',
    ])
    expect(t.system.registry.webhooks().map((w) => `${w.pluginId} ${w.webhook.path}`)).toContain(
      'weather /v1/orgs/:orgId/integrations/weather',
    )
  })

  it('runs a workflow using its action with a connector', async () => {
    const c = await t.call('POST', '/v1/connectors', {
      body: { type: 'weather', name: 'weather', data: { baseUrl: receiver.url, apiKey: API_KEY } },
    })
    expect(c.body.data.maskedData.apiKey).toBe('••••6789')
    const w = await createWorkflow(t, workflow(c.body.data.id))
    const run = await runAndWait(t, w.id, { city: 'Oslo' })
    expect(run.status).toBe('success')
    expect(run.nodes.now.result).toEqual({ city: 'Oslo', celsius: 21.5 })
    expect(receiver.requests.at(-1)?.path).toBe('/current?city=Oslo')
  })

  it('mounts its webhook: a signed alert starts the workflow whose trigger matches', async () => {
    const secret = 'weather_hook_secret_0123456789'
    await t.call('POST', '/v1/connectors', {
      body: {
        type: 'weather',
        name: 'alerts',
        data: { baseUrl: receiver.url, apiKey: API_KEY, webhookSecret: secret },
      },
    })
    const created = await createWorkflow(t, {
      definition: {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'weather-alert', payload: { city: 'Oslo', minLevel: 'orange' }, children: ['say'] },
          say: { type: 'log', payload: { message: '{{$trigger.body.message}}' } },
        },
      },
    })
    expect((await t.call('POST', `/v1/workflows/${created.id}/publish`)).status).toBe(200)
    const send = async (alert: Record<string, unknown>, signature?: string) => {
      const rawBody = JSON.stringify(alert)
      const mac = toHex(await hmacSha256(secret, rawBody))
      return t.call('POST', `/v1/orgs/${t.orgId}/integrations/weather`, {
        key: null,
        rawBody,
        headers: { 'content-type': 'application/json', 'x-weather-signature': signature ?? mac },
      })
    }
    const red = await send({ id: 'al-1', city: 'Oslo', level: 'red', message: 'storm' })
    expect(red.body.action).toBe('triggered')
    expect((await waitForRun(t, red.body.runIds[0])).nodes.say.result.message).toBe('storm')
    expect((await send({ id: 'al-2', city: 'Oslo', level: 'yellow', message: 'drizzle' })).body).toMatchObject({
      action: 'skipped',
      reason: 'no_matching_workflow',
    })
    const forged = await send({ id: 'al-3', city: 'Oslo', level: 'red', message: 'fake' }, '00')
    expect(forged.status).toBe(401)
    expect(forged.body).toMatchObject({ code: 401, message: 'bad signature' })
  })
})

if (!TEST_DATABASE_URL) warnSkipped('the example plugin on Deno (it runs on Postgres)', 'AUTOMATON_TEST_DATABASE_URL')

describe.skipIf(!TEST_DATABASE_URL)('the example plugin on Deno, with Postgres', () => {
  const dir = tempDir()
  let drop: (() => Promise<void>) | undefined
  let receiver: Receiver
  afterAll(async () => {
    await drop?.()
    await receiver?.stop()
    dir.remove()
  })

  it('loads from AUTOMATON_PLUGINS_DIR and runs a workflow using its action', async () => {
    receiver = startReceiver()
    weatherService(receiver)
    const pg = await freshPostgresUrl()
    drop = pg.drop
    const key = 'svcsk_deno_plugins_bootstrap_0123456789abcdef'
    const env = {
      AUTOMATON_DATA_DIR: dir.path,
      AUTOMATON_DATABASE_URL: pg.url,
      AUTOMATON_BOOTSTRAP_KEY: key,
      AUTOMATON_PLUGINS_DIR: EXAMPLE_DIR,
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    }
    const cmd = [DENO, 'run', '--allow-all', '--no-check', '--node-modules-dir=manual', join(ROOT, 'main.ts'), 'serve']
    const server = await startServer({ env, cmd, timeoutMs: 90_000 })
    try {
      expect(server.logs()).toContain('"runtime":"deno"')
      expect(server.logs()).toContain('weather (weather.ts)')
      const c = await api(server.url, 'POST', '/v1/connectors', key, {
        type: 'weather',
        name: 'weather',
        data: { baseUrl: receiver.url, apiKey: API_KEY },
      })
      expect(c.status).toBe(200)
      const w = await api(server.url, 'POST', '/v1/workflows', key, workflow(c.body.data.id))
      expect(w.status).toBe(200)
      const started = await api(server.url, 'POST', `/v1/workflows/${w.body.data.id}/run`, key, {
        payload: { city: 'Bergen' },
      })
      const runId = started.body.data.runId
      let run: any
      for (let i = 0; i < 200; i++) {
        run = (await api(server.url, 'GET', `/v1/runs/${runId}`, key)).body.data
        if (['success', 'failure'].includes(run.status)) break
        await Bun.sleep(50)
      }
      expect(run.status).toBe('success')
      expect(run.nodes.now.result).toEqual({ city: 'Bergen', celsius: 21.5 })
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0)
    }
  }, 120_000)
})
