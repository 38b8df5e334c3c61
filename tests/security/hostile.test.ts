/**
 * The hostile-input suite, generated from the OpenAPI document, on every store: every operation
 * the server describes (today's and every one added later) is sent malformed and deeply nested
 * JSON, wrong JSON types, huge and odd strings, traversal and NUL in path parameters, limits out
 * of range, and no, unknown or revoked keys. Each path parameter is given a real id of the
 * caller's organization (one of each resource is made first), so bodies and queries reach the
 * handler behind the id rather than its 404; fast-check generates bodies and queries shaped by
 * the document with hostile values inside. Whatever it gets, the service answers no 5xx, every
 * error carries the specification's error body, and an operation that needs a key answers 401 to
 * a caller without one before it looks at anything else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { startScriptedOpenAi, type ScriptedOpenAi, textTurn } from '../helpers/openai-server.ts'
import { api } from '../helpers/process.ts'
import { type Receiver, startReceiver } from '../helpers/receiver.ts'
import { createResources, realPath, type Resources } from '../helpers/resources.ts'
import { arbitraryOf, type JsonSchema } from '../helpers/schema-arbitrary.ts'
import { servedPerStore } from '../helpers/served.ts'
import { storeKinds } from '../helpers/services.ts'
import { type CallResult, openTestSystem, recordingLogger, type TestSystem } from '../helpers/system.ts'

interface Operation {
  method: string
  path: string
  keyed: boolean
  hasBody: boolean
  body: JsonSchema | null
  query: Array<{ name: string; schema: JsonSchema }>
}

/** A request the service got wrong: a 5xx, or an error without the specification's error body. */
interface Problem {
  operation: string
  input: string
  status: number
  body: unknown
  /** The error lines the service logged while it answered. */
  log: string[]
}

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

const HOSTILE_BODIES: Array<{ what: string; raw: string; type?: string }> = [
  { what: 'malformed JSON', raw: '{"a": [1, 2' },
  { what: '100,000 brackets', raw: nested(100_000) },
  { what: 'an object nested 10,000 deep', raw: `{"name": ${nested(10_000)}}` },
  { what: 'an array', raw: '[1, 2]' },
  { what: 'a string', raw: '"str"' },
  { what: 'a number', raw: '123' },
  { what: 'null', raw: 'null' },
  { what: 'a huge string', raw: JSON.stringify({ name: 'x'.repeat(300_000), description: 'y'.repeat(300_000) }) },
  {
    what: 'NUL and odd unicode',
    raw: JSON.stringify({ name: 'a\u0000b\ud800\u202e', email: '\u0000@x', url: 'http://\u0000' }),
  },
  { what: 'huge numbers', raw: '{"limit": 1e309, "maxRetries": -1e308, "timeoutMs": 99999999999999999999}' },
  {
    what: 'objects with their own toString where strings belong',
    raw: '{"name": {"toString": 1}, "message": {"toString": 1}, "slug": {"valueOf": 1, "toString": 1}}',
  },
  {
    what: 'counts past 32 bits',
    raw: '{"version": 3000000000, "remainRuns": 3000000000, "expectedCount": 1e308, "maxRetries": 3000000000}',
  },
  { what: 'XML', raw: '<a>1</a>', type: 'application/xml' },
  { what: 'a form', raw: 'a=1&b=2', type: 'application/x-www-form-urlencoded' },
]

const HOSTILE_SEGMENTS = [
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  'x'.repeat(3000),
  '%F0%9F%99%82',
  "'%20OR%201%3D1--",
  '__proto__',
  '-1',
  '9999999999',
  '1e308',
]
const HOSTILE_QUERIES = [
  'limit=-1',
  'limit=1e309',
  'limit=abc&cursor=%00%00',
  'cursor=' + 'z'.repeat(5000),
  'from=-5&to=1e400',
  'offset=1e308',
  'offset=9223372036854775808&since=1e308&until=1e308',
  'since=NaN&status=%00',
  'q=ab%00c&search=ab%00c',
]

/**
 * The failure the health checks guard against stalled the event loop for seconds per request. A
 * check waits at most this long, far more than one takes on any machine, loaded or not; how long
 * they take under hostile input is measured by bench/hostile.ts.
 */
const HEALTH_PATIENCE_MS = 5_000

/** The operations only a person (a sign-in session) may call; every other one is called with the owner key. */
const PERSONAL = /^\/v1\/(auth|user)\//
/** Operations that end what their path names (besides DELETE), and so run after the others. */
const ENDING = /\/(cancel|disable|logout|revoke)$/

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      { security?: unknown[]; requestBody?: any; parameters?: Array<{ name: string; in: string; schema: JsonSchema }> }
    >
  >
}

function operationsOf(doc: Doc): Operation[] {
  const ops: Operation[] = []
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      ops.push({
        method: method.toUpperCase(),
        path,
        keyed: (op.security?.length ?? 0) > 0,
        hasBody: op.requestBody !== undefined || ['POST', 'PUT', 'PATCH'].includes(method.toUpperCase()),
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
      })
    }
  }
  return ops
}

/** Those that delete, archive or end a resource come last, the deepest paths first, so that the others meet live resources. */
function destroyingLast(ops: Operation[]): Operation[] {
  const rank = (op: Operation) =>
    op.method === 'DELETE' ? 100 - op.path.split('/').length : ENDING.test(op.path) ? 1 : 0
  return [...ops].sort((a, b) => rank(a) - rank(b))
}

/** The path with every parameter replaced by `segment`. */
const fill = (path: string, segment: string) => path.replace(/\{[^}]+\}|:[A-Za-z]+/g, segment)
const parameterCount = (path: string) => path.match(/\{[^}]+\}/g)?.length ?? 0

function problemOf(op: Operation, input: string, r: CallResult, log: string[]): Problem | null {
  const body = r.body as Record<string, unknown> | null
  const wellFormed =
    r.status < 400 ||
    (typeof body === 'object' &&
      body !== null &&
      Object.keys(body).sort().join() === 'code,details,message,requestId' &&
      body.code === r.status)
  if (r.status < 500 && wellFormed) return null
  return {
    operation: `${op.method} ${op.path}`,
    input: input.slice(0, 300),
    status: r.status,
    body: typeof body === 'string' ? (body as string).slice(0, 300) : body,
    log,
  }
}

function expectWellFormed(op: Operation, what: string, r: CallResult) {
  expect(problemOf(op, what, r, [])).toBeNull()
}

/** Like TestSystem.call, but a stream is not read to its end: its status and headers are what count. */
async function send(
  t: TestSystem,
  method: string,
  path: string,
  options: { key?: string | null; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers }
  const key = options.key === undefined ? t.key : options.key
  if (key) headers.authorization = `Bearer ${key}`
  const response = await t.system.app.handle(
    new Request(`http://localhost${path}`, { method, headers, body: options.rawBody }),
  )
  if (response.headers.get('content-type')?.includes('text/event-stream')) {
    await response.body?.cancel()
    return { status: response.status, headers: response.headers, body: null }
  }
  const text = await response.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: response.status, headers: response.headers, body }
}

/** Query strings of the operation's parameters, each value shaped by its schema or hostile. */
function queryArbitrary(op: Operation): fc.Arbitrary<string> {
  if (op.query.length === 0) return fc.constant('')
  return fc
    .record(Object.fromEntries(op.query.map((q) => [q.name, arbitraryOf(q.schema)])), { requiredKeys: [] })
    .map((values) =>
      new URLSearchParams(
        Object.entries(values).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      ).toString(),
    )
}

const bodyArbitrary = (op: Operation): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: arbitraryOf(op.body ?? {}), weight: 4 },
    { arbitrary: fc.jsonValue({ maxDepth: 6 }), weight: 1 },
  )

const KEY = 'svcsk_hostile_bootstrap_key_0123456789abcdef'

for (const kind of storeKinds()) {
  describe(`hostile input, generated from the OpenAPI document (${kind})`, () => {
    let t: TestSystem
    let hooks: Receiver
    let model: ScriptedOpenAi
    let ops: Operation[]
    let revoked: string
    let resources: Resources
    const logger = recordingLogger()
    beforeAll(async () => {
      hooks = startReceiver()
      // A model that answers every chat, far more often than the suite asks.
      model = startScriptedOpenAi()
      model.queue(...Array.from({ length: 2000 }, () => textTurn('noted')))
      t = await openTestSystem(
        kind,
        {
          // Hook deliveries go to a local receiver; the organization is the operator, so moderation is reached too.
          AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
          AUTOMATON_HOOK_ALLOW_HTTP: 'true',
          AUTOMATON_OPERATOR_ORG: 'acme',
          AUTOMATON_AI_BASE_URL: model.url,
          AUTOMATON_AI_MODEL: 'scripted',
          AUTOMATON_AI_DEFAULT_CREDITS: '1000000',
        },
        { logger },
      )
      ops = operationsOf((await t.call('GET', '/v1/openapi.json', { key: null })).body)
      const issued = await t.call('POST', '/v1/api-keys', { body: { name: 'soon revoked', scope: 'read-write' } })
      revoked = issued.body.data.key
      expect((await t.call('DELETE', `/v1/api-keys/${issued.body.data.id}`)).status).toBeLessThan(300)
      resources = await createResources(t, hooks.url, `first-${kind}`)
    })
    afterAll(async () => {
      await t?.close()
      await hooks?.stop()
      await model?.stop()
    })

    /** Sends as the operation's caller and answers what went wrong, with what the service logged meanwhile. */
    async function probe(
      op: Operation,
      input: string,
      path: string,
      r: Resources,
      body?: { raw: string; type?: string },
    ): Promise<Problem | null> {
      const caller: { key: string; headers: Record<string, string> } = PERSONAL.test(op.path)
        ? { key: r.person.token, headers: { 'x-org-id': t.orgId } }
        : { key: t.key, headers: {} }
      const logged = logger.lines.length
      const response = await send(t, op.method, path, {
        key: caller.key,
        rawBody: body?.raw,
        headers: { ...caller.headers, ...(body ? { 'content-type': body.type ?? 'application/json' } : {}) },
      })
      return problemOf(
        op,
        input,
        response,
        logger.lines.slice(logged).filter((line) => line.includes('"level":"error"')),
      )
    }

    it('covers the whole API, with a real resource for every path parameter', () => {
      expect(ops.length).toBeGreaterThan(60)
      expect(ops.filter((o) => o.keyed).length).toBeGreaterThan(40)
      expect(ops.filter((o) => realPath(o.path, resources) === null).map((o) => o.path)).toEqual([])
    })

    it('answers 401 to a caller with no key, an unknown key or a revoked key, whatever it sends, before validating anything', async () => {
      for (const op of ops.filter((o) => o.keyed)) {
        const path = `${realPath(op.path, resources)}?${HOSTILE_QUERIES[1]}`
        for (const key of [null, 'svcsk_unknown_0123456789abcdef0123456789', revoked]) {
          const r = await send(t, op.method, path, {
            key,
            rawBody: op.hasBody ? nested(100_000) : undefined,
            headers: op.hasBody ? { 'content-type': 'application/json' } : {},
          })
          expect({ op: `${op.method} ${op.path}`, key: key?.slice(0, 12) ?? null, status: r.status }).toEqual({
            op: `${op.method} ${op.path}`,
            key: key?.slice(0, 12) ?? null,
            status: 401,
          })
          expectWellFormed(op, 'no valid key', r)
        }
      }
    })

    it('never answers 5xx to hostile path parameters beside real ones, and every error has the error body', async () => {
      const problems: Problem[] = []
      for (const op of ops) {
        for (let at = 0; at < parameterCount(op.path); at++) {
          for (const segment of HOSTILE_SEGMENTS) {
            const problem = await probe(
              op,
              `parameter ${at} ${segment.slice(0, 20)}`,
              realPath(op.path, resources, { [at]: segment })!,
              resources,
            )
            if (problem) problems.push(problem)
          }
        }
      }
      expect(problems).toEqual([])
    })

    it('never answers 5xx to hostile bodies and queries sent to real resources, and every error has the error body', async () => {
      const problems: Problem[] = []
      for (const op of destroyingLast(ops)) {
        const path = realPath(op.path, resources)!
        for (const query of HOSTILE_QUERIES) {
          const problem = await probe(op, `query ${query.slice(0, 30)}`, `${path}?${query}`, resources)
          if (problem) problems.push(problem)
        }
        if (!op.hasBody) continue
        for (const body of HOSTILE_BODIES) {
          const problem = await probe(op, body.what, path, resources, body)
          if (problem) problems.push(problem)
        }
      }
      expect(problems).toEqual([])
    })

    it('never answers 5xx to generated bodies and queries shaped by the document, sent to fresh real resources', async () => {
      const fresh = await createResources(t, hooks.url, `generated-${kind}`)
      const problems: Problem[] = []
      for (const op of destroyingLast(ops)) {
        const path = realPath(op.path, fresh)!
        let found: Problem | null = null
        // A failing case is shrunk: the last problem found is the smallest.
        const details = await fc.check(
          fc.asyncProperty(
            queryArbitrary(op),
            op.hasBody ? bodyArbitrary(op) : fc.constant(undefined),
            async (query, body) => {
              const raw = body === undefined ? undefined : { raw: JSON.stringify(body) }
              const problem = await probe(
                op,
                `${query ? `?${query} ` : ''}${raw?.raw ?? ''}`,
                query ? `${path}?${query}` : path,
                fresh,
                raw,
              )
              if (problem) found = problem
              return problem === null
            },
          ),
          { numRuns: op.hasBody ? 25 : 8 },
        )
        if (details.failed) {
          const failure: Problem = found ?? {
            operation: `${op.method} ${op.path}`,
            input: String(details.errorInstance),
            status: 0,
            body: null,
            log: [],
          }
          problems.push({ ...failure, input: `${failure.input} (seed ${details.seed})` })
        }
      }
      expect(problems).toEqual([])
    })
  })

  describe(`hostile input against a server process (${kind})`, () => {
    const served = servedPerStore(kind, KEY)

    it('keeps answering health checks while hostile requests run', async () => {
      const { server } = served
      const ops = operationsOf((await api(server.url, 'GET', '/v1/openapi.json')).body).filter((o) => o.hasBody)
      let running = true
      const health: Array<number | 'unanswered'> = []
      const probe = (async () => {
        while (running) {
          const r = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(HEALTH_PATIENCE_MS) }).catch(
            () => null,
          )
          await r?.arrayBuffer()
          health.push(r?.status ?? 'unanswered')
          await Bun.sleep(10)
        }
      })()
      const statuses: number[] = []
      await Promise.all(
        Array.from({ length: 8 }, async (_, worker) => {
          for (let i = worker; i < ops.length * 3; i += 8) {
            const op = ops[i % ops.length]
            const r = await fetch(`${server.url}${fill(op.path, 'x')}`, {
              method: op.method,
              body: i % 3 === 0 ? nested(100_000) : `{"name": ${nested(50_000)}}`,
              headers: {
                'content-type': 'application/json',
                ...(i % 2 === 0 ? { authorization: `Bearer ${KEY}` } : {}),
              },
            })
            await r.arrayBuffer()
            statuses.push(r.status)
          }
        }),
      )
      running = false
      await probe
      expect(statuses.filter((s) => s >= 500)).toEqual([])
      expect(health.length).toBeGreaterThan(0)
      expect(health.filter((h) => h !== 200)).toEqual([])
    })
  })
}
