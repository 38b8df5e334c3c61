/**
 * The help-desk example plugin on Deno (`npm run start:deno`), with the Postgres store: loaded from
 * AUTOMATON_PLUGINS_DIR, its triggers and action in the catalog, its OAuth2 connector authorized
 * against a real OAuth2 server, and a poll of its new-ticket trigger starting a run per ticket.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { type HelpdeskPlatform, startHelpdesk } from '../../examples/helpdesk/testing/platform.ts'
import { type TestIdentityProvider, startIdentityProvider } from '../helpers/identity-provider.ts'
import { api, DENO, ROOT, type ServerProcess, startServer } from '../helpers/process.ts'
import { freshPostgresUrl, TEST_DATABASE_URL, warnSkipped } from '../helpers/services.ts'
import { tempDir } from '../helpers/tmp.ts'

const DENO_CMD = [DENO, 'run', '--allow-all', '--no-check', '--node-modules-dir=manual', join(ROOT, 'main.ts'), 'serve']
const PUBLIC_URL = 'https://automaton.example.test'
const CALLBACK = `${PUBLIC_URL}/v1/connectors/oauth2/callback`
const KEY = 'svcsk_deno_helpdesk_bootstrap_0123456789abcdef'

if (!TEST_DATABASE_URL) warnSkipped('the help-desk plugin on Deno (it runs on Postgres)', 'AUTOMATON_TEST_DATABASE_URL')

describe.skipIf(!TEST_DATABASE_URL)('the help-desk plugin on Deno, with Postgres', () => {
  const dir = tempDir()
  let drop: (() => Promise<void>) | undefined
  let provider: TestIdentityProvider | undefined
  let platform: HelpdeskPlatform | undefined
  afterAll(async () => {
    await drop?.()
    platform?.stop()
    await provider?.stop()
    dir.remove()
  })

  /** Creates the connector and plays the person who authorizes it. */
  async function connect(server: ServerProcess, oauth: TestIdentityProvider, site: HelpdeskPlatform) {
    const created = await api(server.url, 'POST', '/v1/connectors', KEY, {
      type: 'helpdesk',
      name: 'help desk',
      data: { siteUrl: site.url, clientId: oauth.clientId, clientSecret: oauth.clientSecret },
    })
    expect(created.status).toBe(200)
    const id = created.body.data.id
    const start = await api(server.url, 'GET', `/v1/connectors/${id}/oauth2/start?redirect=false`, KEY)
    const back = await oauth.authorize(start.body.data.authorizationUrl, CALLBACK)
    const callback = await fetch(`${server.url}${back.pathname}${back.search}`, { redirect: 'manual' })
    expect(callback.status).toBe(303)
    return id as string
  }

  it('is in the catalog, and a poll of its new-ticket trigger starts a run', async () => {
    const pg = await freshPostgresUrl()
    drop = pg.drop
    provider = await startIdentityProvider(CALLBACK)
    const oauth = provider
    platform = startHelpdesk(oauth.issuer, async (token) => (await oauth.introspect(token)).active)
    const ticket = platform.open('printer on fire')
    const env = {
      AUTOMATON_DATA_DIR: dir.path,
      AUTOMATON_DATABASE_URL: pg.url,
      AUTOMATON_BOOTSTRAP_KEY: KEY,
      AUTOMATON_PLUGINS_DIR: join(ROOT, 'examples', 'helpdesk'),
      AUTOMATON_PUBLIC_URL: PUBLIC_URL,
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    }
    const server = await startServer({ env, cmd: DENO_CMD, timeoutMs: 90_000 })
    try {
      expect(server.logs()).toContain('"runtime":"deno"')
      const catalog = async (kind: string, type: string) =>
        (await api(server.url, 'GET', `/v1/${kind}/${type}`, KEY)).body
      expect(await catalog('triggers', 'helpdesk-new-ticket')).toMatchObject({ data: { plugin: 'helpdesk' } })
      expect(await catalog('triggers', 'helpdesk-ticket-updated')).toMatchObject({ data: { plugin: 'helpdesk' } })
      expect(await catalog('actions', 'helpdesk-reply')).toMatchObject({ data: { connector: { type: 'helpdesk' } } })

      const connectorId = await connect(server, oauth, platform)
      const definition = {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'helpdesk-new-ticket', payload: { fireExisting: true }, connector: { id: connectorId } },
        },
      }
      const created = await api(server.url, 'POST', '/v1/workflows', KEY, { name: 'tickets', definition })
      const id = created.body.data.id
      expect((await api(server.url, 'POST', `/v1/workflows/${id}/publish`, KEY)).status).toBe(200)
      // The first poll is due at once; wait for the run it starts (the event), not for a time.
      let runs: { id: string }[] = []
      for (let i = 0; i < 600 && runs.length === 0; i++) {
        runs = (await api(server.url, 'GET', `/v1/runs?workflowId=${id}`, KEY)).body.data.items
        if (runs.length === 0) await Bun.sleep(50)
      }
      expect(runs).toHaveLength(1)
      const run = (await api(server.url, 'GET', `/v1/runs/${runs[0].id}`, KEY)).body.data
      expect(run.nodes.root.result.body).toMatchObject({ id: ticket.id, subject: 'printer on fire' })
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0)
    }
  }, 120_000)
})
