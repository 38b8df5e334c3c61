/**
 * Black box: two server processes on one Postgres database receive the same signed payment
 * provider events at the same moment. Each provider event starts exactly one run; every answer
 * for it carries the same eventId and runIds, whichever process gave it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { api, type ServerProcess, startServer } from '../helpers/process.ts'
import { freshPostgresUrl, TEST_DATABASE_URL, warnSkipped } from '../helpers/services.ts'
import { queryDatabase } from '../helpers/stores.ts'
import { tempDir } from '../helpers/tmp.ts'
import { payproviderSignature, paymentEvent } from '../integrations/helpers.ts'

const KEY = 'svcsk_integrations_e2e_bootstrap_key_0123456789'
const SECRET = 'whsec_e2e_0123456789abcdef'
if (!TEST_DATABASE_URL) warnSkipped('the integration webhook process tests', 'AUTOMATON_TEST_DATABASE_URL')

describe.skipIf(!TEST_DATABASE_URL)('integration webhooks across two processes (postgres)', () => {
  const dir = tempDir()
  const servers: ServerProcess[] = []
  let env: Record<string, string>
  let drop: (() => Promise<void>) | undefined

  beforeAll(async () => {
    const pg = await freshPostgresUrl()
    drop = pg.drop
    env = {
      AUTOMATON_DATA_DIR: dir.path,
      AUTOMATON_DATABASE_URL: pg.url,
      AUTOMATON_BOOTSTRAP_KEY: KEY,
      AUTOMATON_PG_POOL_SIZE: '4',
      AUTOMATON_MASTER_KEY: btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))),
    }
    servers.push(await startServer({ env }))
    servers.push(await startServer({ env }))
  }, 60_000)
  afterAll(async () => {
    for (const s of servers) await s.stop('SIGKILL')
    await drop?.()
    dir.remove()
  })

  it('starts one run per provider event, however many deliveries race', async () => {
    const [a, b] = servers
    expect(
      (
        await api(a.url, 'POST', '/v1/connectors', KEY, {
          type: 'payprovider',
          name: 'main',
          data: { signingSecret: SECRET },
        })
      ).status,
    ).toBe(200)
    const created = await api(a.url, 'POST', '/v1/workflows', KEY, {
      definition: {
        triggerNodeIds: ['root'],
        nodes: {
          root: { type: 'payprovider-payment-receive', payload: {}, children: ['say'] },
          say: { type: 'log', payload: { message: 'paid' } },
        },
      },
    })
    const workflowId = created.body.data.id
    expect((await api(a.url, 'POST', `/v1/workflows/${workflowId}/publish`, KEY)).status).toBe(200)
    const orgId = (await api(a.url, 'GET', '/v1/me', KEY)).body.data.organizationId

    const ids = ['evt_race_1', 'evt_race_2', 'evt_race_3', 'evt_race_4']
    const deliver = async (base: string, id: string) => {
      const rawBody = JSON.stringify(paymentEvent(id, 700))
      const response = await fetch(`${base}/v1/orgs/${orgId}/integrations/payprovider`, {
        method: 'POST',
        body: rawBody,
        headers: {
          'content-type': 'application/json',
          'payprovider-signature': await payproviderSignature([SECRET], rawBody),
        },
      })
      return { id, status: response.status, body: await response.json() }
    }
    const answers = await Promise.all(
      ids.flatMap((id) => Array.from({ length: 6 }, (_, i) => deliver((i % 2 === 0 ? a : b).url, id))),
    )
    expect(answers.every((x) => x.status === 200)).toBe(true)
    for (const id of ids) {
      const mine = answers.filter((x) => x.id === id)
      expect(mine.filter((x) => x.body.action === 'triggered')).toHaveLength(1)
      expect(mine.filter((x) => x.body.reason === 'duplicate')).toHaveLength(5)
      expect(new Set(mine.map((x) => x.body.eventId)).size).toBe(1)
      expect(new Set(mine.map((x) => JSON.stringify(x.body.runIds))).size).toBe(1)
    }
    const runs = await queryDatabase<{ event_id: string }>(env, 'SELECT event_id FROM runs WHERE workflow_id = $1', [
      workflowId,
    ])
    expect(runs).toHaveLength(ids.length)
    const stored = await queryDatabase<{ provider_event_id: string }>(
      env,
      'SELECT provider_event_id FROM webhook_events ORDER BY provider_event_id',
    )
    expect(stored.map((r) => r.provider_event_id)).toEqual(ids)
  }, 60_000)
})
