/**
 * The kit's server: the real composition (store, engine, HTTP app, built-in plugins) opened in
 * process for a plugin's tests, on a temporary SQLite data dir and a manual clock. Time moves
 * only when the test says so, and `advance` then runs what became due (timers, schedule ticks,
 * polls, subscriptions to disable or renew) and waits for the runs it started to settle. Webhooks are posted through the HTTP app,
 * so routing, signature checks and deduplication are the server's own.
 *
 * It is the one part of the kit that opens the whole system; the composition root is imported
 * when a server is created, so the rest of the kit stays free of stores and servers.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Awaitable, PluginDefinition } from '../../core/plugin/sdk.ts'
import { createManualClock } from '../../core/ports/clock.ts'
import { silentLogger } from '../../core/ports/logger.ts'
import { TestKitError } from './trigger.ts'

export interface TestServerOptions {
  /** The plugins under test, loaded beside the built-in ones. */
  plugins?: readonly PluginDefinition[]
  /** Extra configuration (`AUTOMATON_*` variables), over the kit's defaults. */
  env?: Record<string, string>
  /** Where the manual clock starts, in milliseconds since the epoch (default: now). */
  start?: number
}

/** What `call` and `deliver` answer: the HTTP status, the parsed JSON body (else the text) and the headers. */
export interface TestResponse<T = unknown> {
  status: number
  body: T
  headers: Record<string, string>
}

/** A resource as the API answers it (a workflow, a connector): its id and its other fields. */
export interface TestRecord {
  readonly id: string
  readonly [field: string]: unknown
}

/** A run as `GET /v1/runs/{id}` answers it. */
export interface TestRun extends TestRecord {
  readonly status: string
  readonly workflowId: string
  readonly triggerType: string | null
  /** Each node's execution, by node id: `status`, `result`, `error` … */
  readonly nodes: Readonly<
    Record<string, { readonly status?: string; readonly result?: unknown; readonly error?: unknown }>
  >
}

export interface DeliverOptions {
  /** The JSON body; or `rawBody`, sent as is. */
  body?: unknown
  rawBody?: string
  headers?: Record<string, string>
  query?: Record<string, string>
  /** Headers computed from the exact raw body sent (a signature), merged over `headers`. */
  sign?: (rawBody: string) => Awaitable<Record<string, string>>
}

export interface TestServer {
  /** The organization made for the test, and its owner API key. */
  readonly organizationId: string
  readonly key: string
  /** The manual clock's time (milliseconds since the epoch). */
  now(): number
  readonly connectors: {
    /** Creates a connector of the organization; answers it as the API does (data masked). */
    create(type: string, data: Record<string, unknown>, name?: string): Promise<TestRecord>
  }
  /** Creates and publishes a workflow (a definition `{ triggerNodeIds, nodes }` or a create body); answers it. */
  publish(workflow: Record<string, unknown>): Promise<TestRecord>
  /**
   * Moves the clock on, runs what became due (timers, schedule ticks, polls, subscriptions to
   * disable or renew) and waits for the runs to settle.
   */
  advance(ms: number): Promise<void>
  /**
   * Posts to an integration webhook, named by its path (`:orgId` filled in) or its `name`, through
   * the HTTP app, then waits for the runs it started to settle.
   */
  deliver(webhook: string, options?: DeliverOptions): Promise<TestResponse>
  /** The runs of a workflow, oldest first. */
  runs(workflowId: string): Promise<TestRecord[]>
  /** One run with its node results (`nodes.<id>.result`). */
  run(id: string): Promise<TestRun>
  /** Any API call with the owner key; the body is sent as JSON. */
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<TestResponse<T>>
  /** Waits until no run of the organization is executing (runs waiting for an event or a time stay). */
  settle(): Promise<void>
  /** Closes the system and removes its data. */
  close(): Promise<void>
}

/** How long `settle` waits for executing runs before it gives up. */
const SETTLE_TIMEOUT_MS = 10_000

const DEFAULT_ENV: Record<string, string> = {
  AUTOMATON_SQLITE_SYNCHRONOUS: 'normal',
  AUTOMATON_PASSWORD_HASH_MEMORY_KIB: '19456',
  // Local test platforms (a server on 127.0.0.1) are private targets: let handlers reach them.
  AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1,::1,localhost',
}

/**
 * Opens a server for a plugin's tests.
 *
 * @example
 * ```ts
 * const server = await createTestServer({ plugins: [myPlugin] })
 * const wf = await server.publish({ triggerNodeIds: ['root'], nodes: { root: { type: 'my-trigger', payload: {} } } })
 * await server.advance(60_000)
 * expect(await server.runs(wf.id)).toHaveLength(1)
 * await server.close()
 * ```
 */
export async function createTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const [{ loadConfig }, { openSystem }] = await Promise.all([
    import('../../core/config.ts'),
    import('../../system/index.ts'),
  ])
  const dir = mkdtempSync(join(tmpdir(), 'automaton-kit-'))
  const clock = createManualClock(options.start ?? Date.now())
  const config = loadConfig({
    ...DEFAULT_ENV,
    AUTOMATON_DATABASE_URL: '',
    ...options.env,
    AUTOMATON_DATA_DIR: dir,
  })
  let system: Awaited<ReturnType<typeof openSystem>>
  try {
    system = await openSystem(config, { logger: silentLogger, clock, plugins: options.plugins })
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  const organization = await system.organizations.create('test')
  const { key } = await system.apiKeys.issue({
    organizationId: organization.id,
    name: 'owner',
    scope: 'read-write',
    role: 'owner',
    serviceAccountId: null,
    userId: null,
    createdBy: 'test-kit',
    expiresAt: null,
  })

  async function send<T>(method: string, path: string, init: { body?: string; headers?: Record<string, string> }) {
    const response = await system.app.handle(new Request(`http://localhost${path}`, { method, ...init }))
    const text = await response.text()
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {}
    return { status: response.status, body: body as T, headers: Object.fromEntries(response.headers) }
  }

  async function call<T = unknown>(method: string, path: string, body?: unknown): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` }
    if (body !== undefined) headers['content-type'] = 'application/json'
    return send<T>(method, path, { headers, body: body === undefined ? undefined : JSON.stringify(body) })
  }

  /** The `data` of a 200 answer; any other status throws with the answer. */
  async function ok<T = TestRecord>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await call<{ data: T }>(method, path, body)
    if (r.status !== 200) throw new TestKitError(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}`)
    return r.body.data
  }

  async function settle() {
    const deadline = Date.now() + SETTLE_TIMEOUT_MS
    for (;;) {
      const [row] = await system.store.all<{ n: number | string }>(
        "SELECT count(*) AS n FROM runs WHERE organization_id = $1 AND status = 'running'",
        [organization.id],
      )
      if (Number(row?.n ?? 0) === 0) return
      if (Date.now() > deadline) throw new TestKitError(`runs still executing after ${SETTLE_TIMEOUT_MS} ms`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  /** One round of what is due now; the number of timers fired and runs started. */
  async function due(): Promise<number> {
    const { engine } = system
    const fired = await engine.timers.tick()
    const ticks = await engine.schedules.tick()
    const polled = await engine.polls.tick()
    // Subscriptions due: a pause's onDisable, a retry of one, a renewal before expiry.
    const kept = await engine.subscriptions.tick()
    await settle()
    return fired + ticks + polled + kept
  }

  function webhookPath(webhook: string): string {
    let path = webhook
    if (!webhook.startsWith('/')) {
      const named = (options.plugins ?? []).flatMap((p) => p.webhooks ?? []).filter((w) => w.name === webhook)
      if (named.length !== 1)
        throw new TestKitError(`${named.length ? 'several webhooks are' : 'no webhook is'} named "${webhook}"`)
      path = named[0].path
    }
    return path.replace(':orgId', organization.id)
  }

  let closed = false
  return {
    organizationId: organization.id,
    key,
    now: () => clock.now(),
    connectors: {
      create: (type, data, name = type) => ok('POST', '/v1/connectors', { type, name, data }),
    },
    async publish(workflow) {
      const body = 'nodes' in workflow ? { name: 'test', definition: workflow } : { name: 'test', ...workflow }
      const created = await ok('POST', '/v1/workflows', body)
      return ok('POST', `/v1/workflows/${created.id}/publish`)
    },
    async advance(ms) {
      clock.advance(ms)
      // What a round starts may make more due at the same time (a run's zero delay): a few rounds.
      for (let round = 0; round < 5 && (await due()) > 0; round++) {}
    },
    async deliver(webhook, init = {}) {
      const rawBody = init.rawBody ?? (init.body === undefined ? '' : JSON.stringify(init.body))
      const headers: Record<string, string> = { 'content-type': 'application/json', ...init.headers }
      Object.assign(headers, init.sign ? await init.sign(rawBody) : {})
      const query = init.query ? `?${new URLSearchParams(init.query)}` : ''
      const answer = await send('POST', `${webhookPath(webhook)}${query}`, { headers, body: rawBody })
      await settle()
      return answer
    },
    async runs(workflowId) {
      const runs: TestRecord[] = []
      for (let offset = 0; ; offset += 100) {
        const query = `workflowId=${encodeURIComponent(workflowId)}&limit=100&offset=${offset}`
        const page = await ok<{ items: TestRecord[]; hasMore: boolean }>('GET', `/v1/runs?${query}`)
        runs.push(...page.items)
        if (!page.hasMore) break
      }
      return runs.sort((a, b) => String(a.createdAt ?? a.id).localeCompare(String(b.createdAt ?? b.id)))
    },
    run: (id) => ok<TestRun>('GET', `/v1/runs/${id}`),
    call,
    settle,
    async close() {
      if (closed) return
      closed = true
      try {
        await system.close()
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}
