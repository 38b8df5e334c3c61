/**
 * Black-box regressions of the hardening findings (hostile input, tenancy, secrets), each
 * against a real server process over HTTP, on SQLite and on Postgres. Two organizations: the
 * bootstrap one (A) and one made with the CLI beside the running server (B).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { runCli, type ServerProcess, startNats, startServer, startWorker, until } from '../helpers/process.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { freshPostgresUrl, storeKinds, TEST_DATABASE_URL, TEST_NATS_URL, warnSkipped } from '../helpers/services.ts'
import { readSse } from '../helpers/sse.ts'
import { tempDir } from '../helpers/tmp.ts'

const KEY_A = 'svcsk_hardening_bootstrap_key_0123456789abcdef'
const MAX_DEPTH = 64
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)
const JSON_TYPE = { 'content-type': 'application/json' }

interface Answer {
  status: number
  body: any
  headers: Headers
}

function client(base: string) {
  return async function call(
    method: string,
    path: string,
    options: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers }
    const key = options.key === undefined ? KEY_A : options.key
    if (key) headers.authorization = `Bearer ${key}`
    let body = options.raw
    if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers['content-type'] ??= 'application/json'
    }
    const response = await fetch(`${base}${path}`, { method, headers, body })
    const text = await response.text()
    let parsed: any = text
    try {
      parsed = JSON.parse(text)
    } catch {}
    return { status: response.status, body: parsed, headers: response.headers }
  }
}

/** The specification's error body, with the status as its code. */
function expectErrorBody(r: Answer, status: number) {
  expect(r.status).toBe(status)
  expect(Object.keys(r.body ?? {}).sort()).toEqual(['code', 'details', 'message', 'requestId'])
  expect(r.body.code).toBe(status)
}

const chain = (count: number) => {
  const nodes: Record<string, unknown> = { root: { type: 'manual', children: ['n0'] } }
  for (let i = 0; i < count; i++)
    nodes[`n${i}`] = { type: 'log', payload: { message: 'x' }, children: i < count - 1 ? [`n${i + 1}`] : [] }
  return { triggerNodeIds: ['root'], nodes }
}

/** A plugin whose action answers a value nested far deeper than a run can keep. */
const DEEP_PLUGIN = `export default ({ definePlugin, defineAction, Type }) => definePlugin({
  id: 'deep', name: 'Deep', version: '1.0.0', author: 'tests',
  actions: [defineAction({
    type: 'deep-result', name: 'Deep result', description: 'answers an array nested 20,000 deep',
    payload: Type.Object({}), result: Type.Any(),
    run() { let v = []; for (let i = 0; i < 20000; i++) v = [v]; return v },
  })],
})
`

const logOnly = {
  triggerNodeIds: ['root'],
  nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'hi' } } },
}

/**
 * The stall these tests guard against held the event loop for seconds per request. A health check
 * waits at most this long, far more than one takes on any machine, loaded or not; how long they
 * take under hostile input is measured by bench/hostile.ts.
 */
const HEALTH_PATIENCE_MS = 5_000

/** Health checks every 10 ms while `work` runs; what each answered ('unanswered' past the patience). */
async function healthWhile(base: string, work: () => Promise<void>) {
  let running = true
  const answers: Array<number | 'unanswered'> = []
  const probe = (async () => {
    while (running) {
      const r = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(HEALTH_PATIENCE_MS) }).catch(() => null)
      await r?.arrayBuffer()
      answers.push(r?.status ?? 'unanswered')
      await Bun.sleep(10)
    }
  })()
  try {
    await work()
  } finally {
    running = false
    await probe
  }
  return answers
}

/** Every health check was answered 200, and there was at least one. */
function expectHealthy(answers: Array<number | 'unanswered'>) {
  expect(answers.length).toBeGreaterThan(0)
  expect(answers.filter((a) => a !== 200)).toEqual([])
}

for (const kind of storeKinds()) {
  describe(`hardening against a server process (${kind})`, () => {
    const dir = tempDir()
    let pg: Awaited<ReturnType<typeof freshPostgresUrl>> | null = null
    let env: Record<string, string>
    let server: ServerProcess
    let receiver: Receiver
    let call: ReturnType<typeof client>
    let keyB: string

    const createLive = async (definition: unknown, key = KEY_A) => {
      const created = await call('POST', '/v1/workflows', { key, body: { name: 'w', definition } })
      if (created.status !== 200) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`)
      const published = await call('POST', `/v1/workflows/${created.body.data.id}/publish`, { key })
      if (published.status !== 200) throw new Error(`publish: ${published.status} ${JSON.stringify(published.body)}`)
      return published.body.data as { id: string; triggerSecret: string }
    }
    const settled = (runId: string, key = KEY_A) =>
      until(
        `run ${runId} to end`,
        async () => {
          const r = await call('GET', `/v1/runs/${runId}`, { key })
          return r.status === 200 && ['success', 'partial', 'failure', 'cancelled'].includes(r.body.data.status)
            ? r.body.data
            : undefined
        },
        20_000,
      )

    beforeAll(async () => {
      receiver = startReceiver()
      pg = kind === 'postgres' ? await freshPostgresUrl() : null
      mkdirSync(join(dir.path, 'plugins'))
      writeFileSync(join(dir.path, 'plugins', 'deep.js'), DEEP_PLUGIN)
      env = {
        AUTOMATON_PLUGINS_DIR: join(dir.path, 'plugins'),
        AUTOMATON_DATA_DIR: dir.path,
        AUTOMATON_DATABASE_URL: pg?.url ?? '',
        AUTOMATON_BOOTSTRAP_KEY: KEY_A,
        AUTOMATON_SSE_RUN_WAIT_MS: '400',
        AUTOMATON_SSE_MAX_STREAMS_PER_KEY: '3',
        AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
        AUTOMATON_HOOK_ALLOW_HTTP: 'true',
        AUTOMATON_HOOK_POLL_MS: '100',
      }
      server = await startServer({ env })
      call = client(server.url)
      expect((await runCli(['orgs', 'create', `org-b-${kind}`], env)).code).toBe(0)
      const issued = await runCli(
        ['keys', 'create', '--org', `org-b-${kind}`, '--name', 'b', '--scope', 'read-write'],
        env,
      )
      keyB = JSON.parse(issued.stdout.trim()).key
    })
    afterAll(async () => {
      await server?.stop('SIGKILL')
      await receiver?.stop()
      await pg?.drop()
      dir.remove()
    })

    describe('1: authentication first, nesting bounded', () => {
      it('answers 401 without a key to a body of 100,000 brackets on every kind of write, while health checks answer', async () => {
        const writes: Array<[string, string]> = [
          ['POST', '/v1/workflows'],
          ['POST', '/v1/connectors'],
          ['POST', '/v1/api-keys'],
          ['POST', '/v1/service-accounts'],
          ['POST', '/v1/members'],
          ['POST', '/v1/execution-webhooks'],
          ['PUT', '/v1/workflows/wf_x'],
          ['POST', '/v1/workflows/wf_x/run'],
          ['POST', '/v1/workflows/validate'],
          ['PATCH', '/v1/service-accounts/sa_x'],
        ]
        const answers: Answer[] = []
        const health = await healthWhile(server.url, async () => {
          for (let round = 0; round < 3; round++) {
            for (const [method, path] of writes)
              answers.push(await call(method, path, { key: null, raw: nested(100_000), headers: JSON_TYPE }))
          }
        })
        for (const r of answers) expectErrorBody(r, 401)
        expectHealthy(health)
      })

      it('answers 401, not 400, to a query it cannot validate when no key is sent', async () => {
        expectErrorBody(await call('GET', '/v1/metrics/failure-rate?from=nope&to=-1', { key: null }), 401)
        expectErrorBody(await call('GET', '/v1/runs?limit=-5', { key: null }), 401)
        expectErrorBody(
          await call('GET', '/v1/runs?limit=-5', { key: 'svcsk_unknown_0123456789abcdef0123456789' }),
          401,
        )
      })

      it(`refuses JSON nested deeper than ${MAX_DEPTH} levels with a 400 naming the bound, on the API, run payloads and webhooks`, async () => {
        const w = await createLive(logOnly)
        const deep = await call('POST', '/v1/workflows', { raw: `{"name": ${nested(10_000)}}`, headers: JSON_TYPE })
        expectErrorBody(deep, 400)
        expect(deep.body.message).toContain(String(MAX_DEPTH))
        expectErrorBody(
          await call('PUT', `/v1/workflows/${w.id}`, { raw: `{"uiMetadata": ${nested(10_000)}}`, headers: JSON_TYPE }),
          400,
        )
        expectErrorBody(
          await call('POST', `/v1/workflows/${w.id}/run`, {
            raw: `{"payload": {"a": ${nested(50_000)}}}`,
            headers: JSON_TYPE,
          }),
          400,
        )
        const hook = await call('POST', `/v1/webhooks/${w.triggerSecret}`, {
          key: null,
          raw: `{"a": ${nested(50_000)}}`,
          headers: JSON_TYPE,
        })
        expectErrorBody(hook, 400)
        expect(hook.body.message).toContain(String(MAX_DEPTH))
        // A form field or a text body is not JSON; a body at the bound is accepted.
        expect(
          (
            await call('POST', `/v1/webhooks/${w.triggerSecret}`, {
              key: null,
              raw: `{"a": ${nested(MAX_DEPTH - 1)}}`,
              headers: JSON_TYPE,
            })
          ).status,
        ).toBe(200)
        expect(
          (await call('POST', `/v1/webhooks/${w.triggerSecret}`, { key: null, body: { text: '['.repeat(5000) } }))
            .status,
        ).toBe(200)
        const counts = (await call('GET', `/v1/runs/status-counts?workflowId=${w.id}`)).body.data
        expect(counts.total).toBe(2)
      })
    })

    describe('2 and 3: hostile definitions', () => {
      it('refuses prototype names as node ids and references, and user-chosen keys outside the charset', async () => {
        const raw =
          '{"name":"p","definition":{"triggerNodeIds":["root"],"nodes":{"root":{"type":"manual","children":["__proto__"]},"__proto__":{"type":"log","payload":{"message":"x"}}}}}'
        const proto = await call('POST', '/v1/workflows', { raw, headers: JSON_TYPE })
        expectErrorBody(proto, 400)
        expect(JSON.stringify(proto.body.details)).toContain('__proto__')
        expectErrorBody(
          await call('POST', '/v1/workflows', {
            body: {
              definition: { triggerNodeIds: ['root'], nodes: { root: { type: 'manual', children: ['constructor'] } } },
            },
          }),
          400,
        )
        expectErrorBody(
          await call('POST', '/v1/workflows', {
            body: { definition: logOnly, variableDefs: [{ name: 'constructor', type: 'number' }] },
          }),
          400,
        )
        expectErrorBody(
          await call('POST', '/v1/workflows', {
            body: {
              definition: {
                triggerNodeIds: ['root'],
                nodes: {
                  root: { type: 'manual', children: ['a b'] },
                  'a b': { type: 'log', payload: { message: 'x' } },
                },
              },
            },
          }),
          400,
        )
        expect(
          (await call('GET', '/v1/workflows?limit=100')).body.data.items.filter(
            (w: { name: string }) => w.name === 'p',
          ),
        ).toEqual([])
      })

      it('refuses a 10,000-node definition by its size, and checks one at the limit, while health checks answer', async () => {
        const answers: Answer[] = []
        const health = await healthWhile(server.url, async () => {
          answers.push(await call('POST', '/v1/workflows/validate', { body: { definition: chain(10_000) } }))
          answers.push(await call('POST', '/v1/workflows', { body: { name: 'huge', definition: chain(10_000) } }))
          answers.push(await call('POST', '/v1/workflows/validate', { body: { definition: chain(999) } }))
        })
        expect(JSON.stringify(answers[0].body)).toContain('at most 1000')
        expectErrorBody(answers[1], 400)
        expect(answers[2].status).toBe(200)
        expect(answers[2].body.data.valid).toBe(true)
        expectHealthy(health)
      })
    })

    describe('1: hostile shapes from the other side', () => {
      it('keeps a JSON response nested past the bound as text while health checks answer, and fails a node whose result is too deep to keep', async () => {
        receiver.respond((req) =>
          req.path === '/deep'
            ? new Response(nested(400_000), { headers: { 'content-type': 'application/json' } })
            : Response.json({ ok: true }),
        )
        const w = await createLive({
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['fetch'] },
            fetch: { type: 'http-request', payload: { url: `${receiver.url}/deep` }, children: ['deep'] },
            deep: { type: 'deep-result', payload: {} },
          },
        })
        let run: any
        const health = await healthWhile(server.url, async () => {
          const started = await call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: {} } })
          run = await settled(started.body.data.runId)
        })
        expect(run.nodes.fetch.status).toBe('success')
        expect(typeof run.nodes.fetch.result.body).toBe('string')
        expect(run.nodes.fetch.result.body.length).toBe(800_000)
        expect(run.status).toBe('failure')
        expect(run.nodes.deep.status).toBe('failure')
        expect(run.error).toMatchObject({ code: 'result_too_deep', nodeId: 'deep' })
        expectHealthy(health)
      })
    })

    describe('6: bodies of the wrong type', () => {
      it('answers 400 with details to wrong JSON types, and changes nothing', async () => {
        const w = await createLive(logOnly)
        const account = (
          await call('POST', '/v1/service-accounts', { body: { name: 'typed', permissions: ['run:read'] } })
        ).body.data
        const connector = (
          await call('POST', '/v1/connectors', {
            body: { type: 'chatapp', name: 'typed', data: { teamId: 'T1', botToken: 'xoxb-typed-0123456789' } },
          })
        ).body.data
        const hook = (
          await call('POST', '/v1/execution-webhooks', { body: { name: 'typed', url: `${receiver.url}/typed` } })
        ).body.data
        const before = (await call('GET', `/v1/workflows/${w.id}`)).body.data
        const cases: Array<[string, string, string, string?]> = [
          ['PUT', `/v1/connectors/${connector.id}`, '{"data":[1,2]}'],
          ['PUT', `/v1/connectors/${connector.id}`, '{"data":"str"}'],
          ['PUT', `/v1/workflows/${w.id}`, '{"publicWidgetConfig":[1]}'],
          ['PUT', `/v1/workflows/${w.id}`, '{"x402Config":[1,2]}'],
          ['PUT', `/v1/workflows/${w.id}`, '{"uiMetadata":[1,2]}'],
          ['PUT', `/v1/workflows/${w.id}`, '{"fundAutoSwapConfig":[1]}'],
          ['PUT', `/v1/workflows/${w.id}`, '123'],
          ['PATCH', `/v1/workflows/${w.id}/ui-metadata`, '123'],
          ['PATCH', `/v1/service-accounts/${account.id}`, '123'],
          ['POST', `/v1/workflows/${w.id}/run`, '{"payload":[1,2]}'],
          ['POST', `/v1/workflows/${w.id}/run`, '{"payload":"s"}'],
          ['POST', `/v1/workflows/${w.id}/run`, '{"payload":5}'],
          ['POST', `/v1/workflows/${w.id}/run`, '<a>1</a>', 'application/xml'],
          ['POST', `/v1/workflows/${w.id}/run`, 'a=1&b=2', 'application/x-www-form-urlencoded'],
          ['POST', `/v1/execution-webhooks/${hook.endpoint.id}/regenerate-secret`, '[]'],
        ]
        for (const [method, path, raw, type] of cases) {
          const r = await call(method, path, { raw, headers: { 'content-type': type ?? 'application/json' } })
          expect({ method, path, raw, status: r.status }).toEqual({ method, path, raw, status: 400 })
          expect(r.body.details.length).toBeGreaterThan(0)
        }
        for (const raw of ['123', '"s"', '[1]', 'null']) {
          const r = await call('POST', `/v1/webhooks/${w.triggerSecret}`, { key: null, raw, headers: JSON_TYPE })
          expect({ raw, status: r.status }).toEqual({ raw, status: 400 })
        }
        expect((await call('GET', `/v1/workflows/${w.id}`)).body.data.updatedAt).toBe(before.updatedAt)
        expect((await call('GET', `/v1/connectors/${connector.id}`)).body.data.updatedAt).toBe(connector.updatedAt)
        expect((await call('GET', `/v1/runs/status-counts?workflowId=${w.id}`)).body.data.total).toBe(0)
        // The secret did not rotate: the endpoint still names no previous secret.
        expect(
          (await call('GET', `/v1/execution-webhooks/${hook.endpoint.id}`)).body.data.previousSecretExpiresAt,
        ).toBe('')
      })
    })

    describe('7: secrets', () => {
      it('keeps credential-like webhook headers out of runs, and webhook secrets out of log lines', async () => {
        const w = await createLive(logOnly)
        const r = await call('POST', `/v1/webhooks/${w.triggerSecret}`, {
          key: null,
          body: { a: 1 },
          headers: {
            'x-auth-token': 'tok_live_0123456789',
            'x-hub-signature': 'sha1=abc',
            'x-session-id': 's1',
            'x-order': '42',
          },
        })
        expect(r.status).toBe(200)
        // Requests that fail, too (malformed JSON, a body too deep).
        await call('POST', `/v1/webhooks/${w.triggerSecret}`, { key: null, raw: '{"a": [1, 2', headers: JSON_TYPE })
        await call('POST', `/v1/webhooks/${w.triggerSecret}`, { key: null, raw: nested(100_000), headers: JSON_TYPE })
        const run = await settled(r.body.data.runIds[0])
        const headers = run.nodes.root.result.headers
        expect(headers['x-order']).toBe('42')
        expect(headers['x-auth-token']).toBe('[redacted]')
        expect(headers['x-hub-signature']).toBe('[redacted]')
        expect(headers['x-session-id']).toBe('[redacted]')
        const readKey = (await call('POST', '/v1/api-keys', { body: { name: 'reader', scope: 'read' } })).body.data.key
        expect(JSON.stringify((await call('GET', `/v1/runs/${run.id}`, { key: readKey })).body)).not.toContain(
          'tok_live_0123456789',
        )
        expect(server.logs()).not.toContain(w.triggerSecret)
      })

      it("masks the organization's connector secrets by value in runs, streams, hook deliveries and the database, whatever path brought them", async () => {
        const secret = `xoxb-hardening-${kind}-5f1c9a77d2`
        const connector = await call('POST', '/v1/connectors', {
          body: { type: 'chatapp', name: `leaky ${kind}`, data: { teamId: 'TLEAK', botToken: secret } },
        })
        expect(connector.status).toBe(200)
        receiver.respond((req) =>
          req.path.startsWith('/echo')
            ? Response.json({ echoed: JSON.parse(req.body || '{}') })
            : Response.json({ ok: true }),
        )
        const hook = await call('POST', '/v1/execution-webhooks', {
          body: {
            name: 'leak',
            url: `${receiver.url}/hooks`,
            subscribedEventTypes: ['node.succeeded', 'run.succeeded'],
          },
        })
        expect(hook.status).toBe(200)
        const w = await createLive({
          triggerNodeIds: ['root'],
          nodes: {
            root: { type: 'manual', children: ['say'] },
            say: { type: 'log', payload: { message: 'token is {{root.result.body.token}}' }, children: ['echo'] },
            echo: {
              type: 'http-request',
              payload: {
                method: 'POST',
                url: `${receiver.url}/echo`,
                body: { token: '{{root.result.body.token}}', note: '{{root.result.body.note}}' },
              },
            },
          },
        })
        const started = await call('POST', `/v1/workflows/${w.id}/run`, {
          body: { payload: { token: secret, note: `the secret is ${secret}!` } },
        })
        expect(started.status).toBe(200)
        const runId = started.body.data.runId
        const stream = readSse(
          await fetch(`${server.url}/v1/executions/${runId}/stream`, { headers: { authorization: `Bearer ${KEY_A}` } }),
        )
        const run = await settled(runId)
        expect(run.status).toBe('success')
        const events = await stream.until(
          (e) => e.event === 'run.succeeded' || e.data?.type === 'run.succeeded',
          10_000,
        )
        await stream.cancel()
        const shown = JSON.stringify(run)
        expect(shown).not.toContain(secret)
        expect(shown).toContain('••••')
        expect(run.nodes.root.result.body.note).toBe('the secret is ••••!')
        expect(JSON.stringify(events)).not.toContain(secret)
        expect(JSON.stringify(events)).toContain('••••')
        // The deliveries sent, and their records.
        await until(
          'hook deliveries',
          async () =>
            receiver.requests.filter((r) => r.path === '/hooks' && r.body.includes(runId)).length >= 3 || undefined,
        )
        expect(
          receiver.requests
            .filter((r) => r.path === '/hooks')
            .map((r) => r.body)
            .join('\n'),
        ).not.toContain(secret)
        const deliveries = (await call('GET', '/v1/execution-webhooks/deliveries?limit=50')).body.data.items
        for (const d of deliveries.slice(0, 5))
          expect(JSON.stringify((await call('GET', `/v1/execution-webhooks/deliveries/${d.id}`)).body)).not.toContain(
            secret,
          )
        // The HTTP node did send the real value (the request is the user's), its echo came back masked.
        expect(receiver.requests.find((r) => r.path === '/echo')!.body).toContain('••••')
        // Nothing that reached the store holds it.
        if (kind === 'sqlite') {
          // A write acknowledged now is on disk, and so is every write committed before it.
          expect(
            (await call('POST', '/v1/service-accounts', { body: { name: 'flushed', permissions: ['run:read'] } }))
              .status,
          ).toBe(200)
          for (const file of readdirSync(dir.path).filter((f) => f.includes('.db') || f.endsWith('-wal'))) {
            expect({ file, found: readFileSync(join(dir.path, file)).includes(Buffer.from(secret)) }).toEqual({
              file,
              found: false,
            })
          }
        } else {
          const sql = postgres(pg!.url, { max: 1, onnotice: () => {} })
          try {
            // Every row of every table of the schema, as text.
            const tables = await sql<
              { name: string }[]
            >`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
            expect(tables.length).toBeGreaterThan(10)
            for (const { name } of tables) {
              const [{ found }] = await sql.unsafe(
                `SELECT count(*)::int AS found FROM "${name}" t WHERE t::text LIKE $1`,
                [`%${secret}%`],
              )
              expect({ table: name, found }).toEqual({ table: name, found: 0 })
            }
          } finally {
            await sql.end()
          }
        }
      })
    })

    describe('8: service accounts', () => {
      it('lets a caller disable, change or delete only accounts whose permissions it holds', async () => {
        const powerful = (
          await call('POST', '/v1/service-accounts', {
            body: {
              name: 'powerful',
              permissions: [
                'workflow:create',
                'workflow:update',
                'service_account:write',
                'service_account:read',
                'apikey:create',
              ],
            },
          })
        ).body.data
        const weak = (
          await call('POST', '/v1/service-accounts', {
            body: {
              name: 'weak admin',
              permissions: ['service_account:write', 'service_account:read', 'apikey:create'],
            },
          })
        ).body.data
        const minor = (
          await call('POST', '/v1/service-accounts', { body: { name: 'minor', permissions: ['service_account:read'] } })
        ).body.data
        const weakKey = (await call('POST', '/v1/api-keys', { body: { name: 'weak', serviceAccountId: weak.id } })).body
          .data.key
        const powerfulKey = (
          await call('POST', '/v1/api-keys', { body: { name: 'powerful', serviceAccountId: powerful.id } })
        ).body.data.key
        expectErrorBody(await call('POST', `/v1/service-accounts/${powerful.id}/disable`, { key: weakKey }), 403)
        expectErrorBody(await call('DELETE', `/v1/service-accounts/${powerful.id}`, { key: weakKey }), 403)
        expectErrorBody(
          await call('PATCH', `/v1/service-accounts/${powerful.id}`, { key: weakKey, body: { name: 'renamed' } }),
          403,
        )
        expect((await call('GET', '/v1/me', { key: powerfulKey })).status).toBe(200)
        expect((await call('POST', `/v1/service-accounts/${minor.id}/disable`, { key: weakKey })).status).toBe(200)
        expect((await call('DELETE', `/v1/service-accounts/${minor.id}`, { key: weakKey })).status).toBe(200)
      })
    })

    describe('9: run ids and streams', () => {
      it('answers a run id of another organization like any unusable id, with no hint that it exists', async () => {
        const a = await createLive(logOnly)
        const b = await createLive(logOnly, keyB)
        const runId = `run_${kind}HARDENING0000000000A`
        expect(
          (await call('POST', `/v1/workflows/${a.id}/run`, { body: { payload: {}, runId } })).body.data.runId,
        ).toBe(runId)
        const taken = await call('POST', `/v1/workflows/${b.id}/run`, { key: keyB, body: { payload: {}, runId } })
        const unused = await call('POST', `/v1/workflows/${b.id}/run`, {
          key: keyB,
          body: { payload: {}, runId: 'run_!' },
        })
        expectErrorBody(taken, 400)
        expectErrorBody(unused, 400)
        expect(taken.body.message).toBe(unused.body.message)
        expect(taken.body.details.map((d: { path: string }) => d.path)).toEqual(['/runId'])
        expect(JSON.stringify(taken.body)).not.toMatch(/taken|exists|another/i)
        // B cannot see A's run either.
        expectErrorBody(await call('GET', `/v1/runs/${runId}`, { key: keyB }), 404)
        expect((await call('GET', `/v1/runs/${runId}`)).status).toBe(200)
      })

      it('ends the stream of a run that does not exist after the configured wait, and caps the streams of a key', async () => {
        const missing = await fetch(`${server.url}/v1/runs/run_doesnotexist000/stream`, {
          headers: { authorization: `Bearer ${keyB}` },
        })
        expect(missing.status).toBe(200)
        // The stream ends by itself (AUTOMATON_SSE_RUN_WAIT_MS), with nothing but its greeting.
        expect(await missing.text()).toStartWith(': connected')
        const open = () => fetch(`${server.url}/v1/activity/stream`, { headers: { authorization: `Bearer ${keyB}` } })
        const held = [await open(), await open(), await open()]
        for (const r of held) expect(r.status).toBe(200)
        const refused = await open()
        expect(refused.status).toBe(429)
        expect(refused.headers.get('retry-after')).not.toBeNull()
        expectErrorBody({ status: refused.status, body: await refused.json(), headers: refused.headers }, 429)
        // Another key is not limited by B's streams.
        const other = await fetch(`${server.url}/v1/activity/stream`, { headers: { authorization: `Bearer ${KEY_A}` } })
        expect(other.status).toBe(200)
        await other.body!.cancel()
        for (const r of held) await r.body!.cancel()
      })
    })

    describe('tenancy', () => {
      it("answers 404 to another organization's resources", async () => {
        const w = await createLive(logOnly)
        const connector = (
          await call('POST', '/v1/connectors', {
            body: { type: 'chatapp', name: 'mine', data: { teamId: 'T9', botToken: 'xoxb-mine-0123456789' } },
          })
        ).body.data
        const run = (await call('POST', `/v1/workflows/${w.id}/run`, { body: { payload: {} } })).body.data.runId
        for (const path of [`/v1/workflows/${w.id}`, `/v1/connectors/${connector.id}`, `/v1/runs/${run}`])
          expectErrorBody(await call('GET', path, { key: keyB }), 404)
        expectErrorBody(await call('POST', `/v1/runs/${run}/cancel`, { key: keyB }), 404)
        expectErrorBody(await call('DELETE', `/v1/connectors/${connector.id}`, { key: keyB }), 404)
      })
    })
  })
}

const scaledOut = Boolean(TEST_DATABASE_URL && TEST_NATS_URL)
if (!scaledOut)
  warnSkipped(
    'the cancel-without-workers regression (an API process on Postgres and NATS)',
    TEST_DATABASE_URL ? 'AUTOMATON_TEST_NATS_URL' : 'AUTOMATON_TEST_DATABASE_URL',
  )

describe.skipIf(!scaledOut)('2: a cancel always ends a run that has not ended', () => {
  const dir = tempDir()
  const natsDir = tempDir('automaton-nats-')
  let nats: Awaited<ReturnType<typeof startNats>>
  let pg: Awaited<ReturnType<typeof freshPostgresUrl>>
  let env: Record<string, string>
  let server: ServerProcess
  let worker: Awaited<ReturnType<typeof startWorker>> | null = null
  // An OpenTelemetry collector of the test's own: the OTLP/HTTP JSON both processes export to.
  const exported: Array<{ role: string; span: Record<string, any> }> = []
  const collector = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const body = (await request.json()) as {
        resourceSpans?: Array<{
          resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }
          scopeSpans: Array<{ spans: Array<Record<string, any>> }>
        }>
      }
      for (const rs of body.resourceSpans ?? []) {
        const role = rs.resource.attributes.find((a) => a.key === 'automaton.role')?.value.stringValue ?? ''
        for (const ss of rs.scopeSpans) for (const span of ss.spans) exported.push({ role, span })
      }
      return Response.json({})
    },
  })

  beforeAll(async () => {
    nats = await startNats(natsDir.path)
    pg = await freshPostgresUrl()
    env = {
      AUTOMATON_DATA_DIR: dir.path,
      AUTOMATON_DATABASE_URL: pg.url,
      AUTOMATON_NATS_URL: nats.url,
      AUTOMATON_BOOTSTRAP_KEY: KEY_A,
      AUTOMATON_HEARTBEAT_MS: '300',
      AUTOMATON_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}`,
      // What crosses the hop to the workers is the subject here: runs of pure nodes go there too.
      AUTOMATON_FINISH_AT_ADMISSION: 'false',
    }
    // The API process alone: no worker takes the runs it admits.
    server = await startServer({ env })
  })
  afterAll(async () => {
    await worker?.stop('SIGKILL')
    await server?.stop('SIGKILL')
    collector.stop(true)
    await nats?.stop()
    await pg?.drop()
    dir.remove()
    natsDir.remove()
  })

  it('ends a run nobody executes as cancelled, and no worker starts it afterwards', async () => {
    const call = client(server.url)
    const created = await call('POST', '/v1/workflows', { body: { name: 'queued', definition: logOnly } })
    const runId = (await call('POST', `/v1/workflows/${created.body.data.id}/run`, { body: { payload: {} } })).body.data
      .runId
    expect((await call('GET', `/v1/runs/${runId}`)).body.data.status).toBe('running')
    const cancelled = await call('POST', `/v1/runs/${runId}/cancel`)
    expect(cancelled.status).toBe(200)
    expect(cancelled.body.data.status).toBe('cancelled')
    expect((await call('GET', `/v1/runs/${runId}`)).body.data).toMatchObject({
      status: 'cancelled',
      finishedAt: expect.any(String),
    })
    expectErrorBody(await call('POST', `/v1/runs/${runId}/cancel`), 409)
    // A worker that comes later leaves it as it is, and executes new runs.
    const probe = Bun.serve({ port: 0, fetch: () => new Response() })
    const workerPort = probe.port
    probe.stop(true)
    worker = await startWorker({ ...env, AUTOMATON_WORKER_PORT: String(workerPort) })
    const next = (await call('POST', `/v1/workflows/${created.body.data.id}/run`, { body: { payload: {} } })).body.data
      .runId
    await until(
      'the next run to succeed',
      async () => (await call('GET', `/v1/runs/${next}`)).body.data.status === 'success' || undefined,
    )
    const after = (await call('GET', `/v1/runs/${runId}`)).body.data
    expect(after.status).toBe('cancelled')
    expect(after.nodes.say?.status ?? 'pending').not.toBe('success')

    // Each process counts what it did: the API admitted both runs, the worker finished one.
    const scrape = async (base: string) => {
      const text = await (await fetch(`${base}/metrics`)).text()
      const get = (series: string) =>
        Number(
          text
            .split('\n')
            .find((l) => l.startsWith(`${series} `))
            ?.split(' ')[1] ?? 0,
        )
      return get
    }
    const apiMetrics = await scrape(server.url)
    const workerMetrics = await scrape(`http://127.0.0.1:${workerPort}`)
    expect(apiMetrics('automaton_runs_started_total{trigger_type="manual",triggered_by="key"}')).toBe(2)
    expect(workerMetrics('automaton_runs_finished_total{status="success"}')).toBe(1)
    expect(workerMetrics('automaton_runs_started_total{trigger_type="manual",triggered_by="key"}')).toBe(0)
    // The worker serves its health and metrics there, and no API.
    expect((await fetch(`http://127.0.0.1:${workerPort}/healthz`)).status).toBe(200)
    expect(
      (await fetch(`http://127.0.0.1:${workerPort}/v1/workflows`, { headers: { authorization: `Bearer ${KEY_A}` } }))
        .status,
    ).toBe(404)

    // A trace across the hop: the API admits the run in the caller's trace, the worker reports
    // the run's span (the caller's child) and its node's (the run's child) to the collector.
    const traced = await fetch(`${server.url}/v1/workflows/${created.body.data.id}/run`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${KEY_A}`,
        'content-type': 'application/json',
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      },
      body: '{}',
    })
    const tracedRun = ((await traced.json()) as { data: { runId: string } }).data.runId
    const spansOf = () =>
      exported.filter((e) =>
        e.span.attributes?.some(
          (a: { key: string; value: { stringValue?: string } }) =>
            a.key === 'automaton.run.id' && a.value.stringValue === tracedRun,
        ),
      )
    await until(
      "the run's spans at the collector",
      async () => spansOf().some((e) => e.span.name === 'run') || undefined,
    )
    const runSpan = spansOf().find((e) => e.span.name === 'run')!
    expect(runSpan.role).toBe('worker')
    expect(runSpan.span.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736')
    expect(runSpan.span.parentSpanId).toBe('00f067aa0ba902b7')
    const nodeSpan = spansOf().find((e) => e.span.name === 'node log')!
    expect(nodeSpan.span.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736')
    expect(nodeSpan.span.parentSpanId).toBe(runSpan.span.spanId)
  })
})
