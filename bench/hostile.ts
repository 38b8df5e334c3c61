/**
 * Health checks under hostile input, against a server process on SQLite: how long `/healthz`
 * takes while eight clients send what the hostile-input tests send (bodies of 100,000 brackets
 * without a key, JSON nested past the bound with one, 10,000-node definitions), against the same
 * checks on the idle server; and how long a keyless 100,000-bracket body takes to be refused.
 * The tests (tests/e2e/hardening.test.ts, tests/security/hostile.test.ts) assert that every check
 * is answered; the figures, which a loaded machine moves, are measured here.
 *   bun bench/hostile.ts [--scale 0.25]
 */
import { startServer } from '../tests/helpers/process.ts'
import { tempDir } from '../tests/helpers/tmp.ts'
import type { Result } from './store-writes.ts'

const KEY = 'svcsk_bench_hostile_bootstrap_0123456789abcdef'
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

function chain(count: number) {
  const nodes: Record<string, unknown> = { root: { type: 'manual', children: ['n0'] } }
  for (let i = 0; i < count; i++)
    nodes[`n${i}`] = { type: 'log', payload: { message: 'x' }, children: i < count - 1 ? [`n${i + 1}`] : [] }
  return { triggerNodeIds: ['root'], nodes }
}

/** What one hostile client sends, in turn. */
const HOSTILE: Array<{ path: string; key: boolean; body: string }> = [
  { path: '/v1/workflows', key: false, body: nested(100_000) },
  { path: '/v1/connectors', key: false, body: nested(100_000) },
  { path: '/v1/workflows', key: true, body: `{"name": ${nested(50_000)}}` },
  { path: '/v1/workflows/validate', key: true, body: JSON.stringify({ definition: chain(10_000) }) },
]

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
const round = (n: number) => Math.round(n * 10) / 10

async function timed(call: () => Promise<Response>): Promise<number> {
  const started = performance.now()
  await (await call()).arrayBuffer()
  return performance.now() - started
}

/** `/healthz` every 10 ms until `done` settles; the latencies, sorted. */
async function healthDuring(base: string, done: Promise<unknown>): Promise<number[]> {
  let running = true
  void done.finally(() => (running = false))
  const latencies: number[] = []
  while (running) {
    latencies.push(await timed(() => fetch(`${base}/healthz`)))
    await Bun.sleep(10)
  }
  return latencies.sort((a, b) => a - b)
}

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  const scale = options.scale ?? 1
  const rounds = Math.max(2, Math.round(10 * scale))
  const dir = tempDir('automaton-bench-hostile-')
  const server = await startServer({ env: { AUTOMATON_DATA_DIR: dir.path, AUTOMATON_BOOTSTRAP_KEY: KEY } })
  try {
    const send = (h: (typeof HOSTILE)[number]) => () =>
      fetch(`${server.url}${h.path}`, {
        method: 'POST',
        body: h.body,
        headers: { 'content-type': 'application/json', ...(h.key ? { authorization: `Bearer ${KEY}` } : {}) },
      })
    const idle = await healthDuring(server.url, Bun.sleep(Math.max(1000, 3000 * scale)))
    const refusals: number[] = []
    const load = Promise.all(
      Array.from({ length: 8 }, async (_, client) => {
        for (let i = 0; i < rounds * HOSTILE.length; i++) {
          const hostile = HOSTILE[(client + i) % HOSTILE.length]
          const ms = await timed(send(hostile))
          if (!hostile.key) refusals.push(ms)
        }
      }),
    )
    const loaded = await healthDuring(server.url, load)
    refusals.sort((a, b) => a - b)
    return [
      {
        name: 'health check under hostile input (SQLite, 8 clients): p50',
        value: round(percentile(loaded, 50)),
        unit: 'ms',
        note:
          `p99 ${round(percentile(loaded, 99))} ms, max ${round(loaded.at(-1)!)} ms over ${loaded.length} checks; ` +
          `idle p50 ${round(percentile(idle, 50))} ms, p99 ${round(percentile(idle, 99))} ms; target p50 < 100 ms, max < 1 s`,
      },
      {
        name: 'keyless 100,000-bracket body refused (401) under the same load: p50',
        value: round(percentile(refusals, 50)),
        unit: 'ms',
        note: `max ${round(refusals.at(-1)!)} ms over ${refusals.length} requests; target max < 1 s`,
      },
    ]
  } finally {
    await server.stop('SIGKILL')
    dir.remove()
  }
}

if (import.meta.main) {
  for (const r of await run())
    console.log(`${r.name}: ${r.value.toLocaleString('en')} ${r.unit}${r.note ? ` (${r.note})` : ''}`)
}
