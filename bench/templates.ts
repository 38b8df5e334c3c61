/**
 * Template and tag search on the embedded store (SQLite), through the HTTP app (what
 * GET /v1/templates?search=… and GET /v1/tags?search=… cost after authentication), over 10,000
 * templates carrying 1,000 tags (scaled by --scale), half of them public and approved.
 *   bun bench/templates.ts [--scale 0.2]
 */
import { loadConfig } from '../core/config.ts'
import { silentLogger } from '../core/ports/logger.ts'
import { openSystem } from '../main.ts'
import { tempDir } from '../tests/helpers/tmp.ts'
import { organizationWithKey } from './served.ts'
import type { Result } from './store-writes.ts'

const WORDS = [
  'digest',
  'alert',
  'invoice',
  'report',
  'sync',
  'backup',
  'weather',
  'price',
  'monitor',
  'notify',
  'summary',
  'payment',
  'deploy',
  'ticket',
  'lead',
]
const QUERIES = ['digest', 'alert 12', 'price', 'weekly', 'tag 42', 'sync', 'notify', 'zzz', 'report 9', 'pay']

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  const scale = options.scale ?? 1
  const dir = tempDir('automaton-bench-templates-')
  const system = await openSystem(
    loadConfig({
      AUTOMATON_DATA_DIR: dir.path,
      AUTOMATON_OPERATOR_ORG: 'operator',
      AUTOMATON_SQLITE_SYNCHRONOUS: 'normal',
    }),
    { logger: silentLogger, engine: false },
  )
  try {
    const issue = async (name: string) => (await organizationWithKey(system, name)).key
    const operator = await issue('operator')
    const author = await issue('author')
    const reader = await issue('reader')
    const call = async (key: string, method: string, path: string, body?: unknown) => {
      const response = await system.app.handle(
        new Request(`http://localhost${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      )
      const parsed = (await response.json()) as { data: { id: string } }
      if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed)}`)
      return parsed.data
    }
    const tagCount = Math.max(100, Math.round(1000 * scale))
    const templateCount = Math.max(1000, Math.round(10_000 * scale))
    for (let i = 0; i < tagCount; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, tagCount - i) }, (_, j) =>
          call(operator, 'POST', '/v1/tags', {
            slug: `tag-${i + j}`,
            name: `Tag ${i + j}`,
            description: `${WORDS[(i + j) % WORDS.length]} things`,
            weight: (i + j) % 97,
          }),
        ),
      )
    }
    const definition = {
      triggerNodeIds: ['root'],
      nodes: { root: { type: 'manual', children: ['say'] }, say: { type: 'log', payload: { message: 'hi' } } },
    }
    const started = performance.now()
    for (let i = 0; i < templateCount; i += 100) {
      const made = await Promise.all(
        Array.from({ length: Math.min(100, templateCount - i) }, (_, j) => {
          const n = i + j
          return call(author, 'POST', '/v1/templates', {
            name: `${WORDS[n % WORDS.length]} ${WORDS[Math.floor(n / WORDS.length) % WORDS.length]} ${n}`,
            description: `A ${n % 7 === 0 ? 'weekly' : 'daily'} ${WORDS[(n * 7) % WORDS.length]} workflow number ${n}`,
            tags: [`tag-${n % tagCount}`, `tag-${(n * 13) % tagCount}`, `tag-${(n * 31) % tagCount}`],
            visibility: n % 2 === 0 ? 'public' : 'org',
            definition,
          })
        }),
      )
      await Promise.all(
        made.filter((_, j) => (i + j) % 2 === 0).map((t) => call(operator, 'POST', `/v1/templates/${t.id}/approve`)),
      )
    }
    const loadSeconds = (performance.now() - started) / 1000
    const measure = async (key: string, path: (q: string) => string, rounds: number) => {
      const times: number[] = []
      for (let i = 0; i < rounds + 50; i++) {
        const q = QUERIES[i % QUERIES.length]
        const t0 = performance.now()
        await call(key, 'GET', path(encodeURIComponent(q)))
        if (i >= 50) times.push(performance.now() - t0)
      }
      times.sort((a, b) => a - b)
      return { p50: percentile(times, 50), p99: percentile(times, 99), max: times.at(-1)! }
    }
    const rounds = Math.max(300, Math.round(2000 * scale))
    const templates = await measure(reader, (q) => `/v1/templates?search=${q}`, rounds)
    const own = await measure(author, (q) => `/v1/templates?search=${q}`, rounds)
    const tags = await measure(reader, (q) => `/v1/tags?search=${q.replace(/%20\d+$/, '')}`, rounds)
    const f = (n: number) => Math.round(n * 100) / 100
    const size = `${templateCount.toLocaleString('en')} templates, ${tagCount.toLocaleString('en')} tags`
    return [
      {
        name: `GET /v1/templates?search=… by another organization, ${size} (SQLite): p99`,
        value: f(templates.p99),
        unit: 'ms',
        note: `p50 ${f(templates.p50)} ms, max ${f(templates.max)} ms over ${rounds} requests; loading took ${f(loadSeconds)} s; target p99 < 20 ms`,
      },
      {
        name: `GET /v1/templates?search=… by the author, ${size} (SQLite): p99`,
        value: f(own.p99),
        unit: 'ms',
        note: `p50 ${f(own.p50)} ms, max ${f(own.max)} ms; target p99 < 20 ms`,
      },
      {
        name: `GET /v1/tags?search=…, ${size} (SQLite): p99`,
        value: f(tags.p99),
        unit: 'ms',
        note: `p50 ${f(tags.p50)} ms, max ${f(tags.max)} ms; target p99 < 20 ms`,
      },
    ]
  } finally {
    await system.close()
    dir.remove()
  }
}

if (import.meta.main) {
  const at = process.argv.indexOf('--scale')
  for (const r of await run({ scale: at >= 0 ? Number(process.argv[at + 1]) : 1 }))
    console.log(`${r.name}: ${r.value.toLocaleString('en')} ${r.unit}${r.note ? ` (${r.note})` : ''}`)
}
