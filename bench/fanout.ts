/**
 * Fan-out of one run's events to 1,000 SSE subscribers (the run stream), against a real server
 * process (embedded mode). Two client processes hold 500 connections each.
 *   1. throughput: a run that emits ~2,000 events as fast as the engine can; deliveries per second;
 *   2. latency at the target rate: a run whose nodes take a few ms each (an HTTP call to a local
 *      receiver answering after 3 ms), so events come at about the target rate; journal time → received.
 * The journal time precedes the commit and the bus publish, so the latency is an upper bound of
 * publish → receive.
 *   bun bench/fanout.ts
 */
import { join } from 'node:path'
import { api, BUN, ROOT, startServer } from '../tests/helpers/process.ts'
import { tempDir } from '../tests/helpers/tmp.ts'
import type { Result } from './store-writes.ts'

const KEY = 'svcsk_fanout_bench_bootstrap_key_0123456789'

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  const subscribers = 1000
  const clients = 2
  const outer = Math.max(1, Math.round(10 * (options.scale ?? 1)))
  const dir = tempDir('automaton-fanout-')
  const receiver = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async () => (await Bun.sleep(3), Response.json({ ok: true })),
  })
  const server = await startServer({
    env: {
      AUTOMATON_DATA_DIR: dir.path,
      AUTOMATON_BOOTSTRAP_KEY: KEY,
      AUTOMATON_LOG_LEVEL: 'info',
      AUTOMATON_SSE_BUFFER_BYTES: String(64 * 1024 * 1024),
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    },
  })
  try {
    const burst = await measure(
      server,
      {
        outer: { type: 'for-each', payload: { array: '{{$trigger.body.outer}}' }, loopBody: ['inner'] },
        inner: { type: 'for-each', payload: { array: '{{$trigger.body.inner}}' }, loopBody: ['tick'] },
        tick: { type: 'log', payload: { message: '{{$parent_item}}.{{$item}}' } },
      },
      outer,
      subscribers,
      clients,
    )
    const paced = await measure(
      server,
      {
        outer: { type: 'for-each', payload: { array: '{{$trigger.body.outer}}' }, loopBody: ['inner'] },
        inner: { type: 'for-each', payload: { array: '{{$trigger.body.inner}}' }, loopBody: ['tick'] },
        tick: { type: 'http-request', payload: { url: `${receiver.url}/tick` } },
      },
      2,
      subscribers,
      clients,
    )
    return [
      {
        name: `fan-out of one run's events to ${subscribers} SSE subscribers`,
        value: Math.round(burst.delivered / burst.seconds),
        unit: 'deliveries/s',
        note: `${burst.delivered.toLocaleString('en')} deliveries of ${burst.expected} events in ${burst.seconds.toFixed(2)} s; ${burst.complete}/${subscribers} subscribers got every event; target ≥ 200,000/s`,
      },
      {
        name: `journal time → received, p99, at ${Math.round(paced.delivered / paced.seconds).toLocaleString('en')} deliveries/s`,
        value: Math.round(paced.p99),
        unit: 'ms',
        note: `p50 ${Math.round(paced.p50)} ms; ${paced.complete}/${subscribers} subscribers complete; target p99 < 50 ms`,
      },
    ]
  } finally {
    await server.stop('SIGKILL')
    receiver.stop(true)
    dir.remove()
  }
}

interface Measured {
  expected: number
  delivered: number
  complete: number
  seconds: number
  p50: number
  p99: number
}

/** Opens the subscribers on a run id, starts that run, and gathers what the clients measured. */
async function measure(
  server: { url: string; port: number },
  body: Record<string, unknown>,
  outer: number,
  subscribers: number,
  clients: number,
): Promise<Measured> {
  const created = await api(server.url, 'POST', '/v1/workflows', KEY, {
    definition: { triggerNodeIds: ['root'], nodes: { root: { type: 'manual', children: ['outer'] }, ...body } },
  })
  const runId = `run_01FANOUT${Date.now()}`
  // run.started, root, the outer loop (looping, succeeded), each inner loop (started, looping, succeeded), two per tick, run.succeeded.
  const expected = 6 + 203 * outer
  const procs = Array.from({ length: clients }, () =>
    Bun.spawn(
      [
        BUN,
        join(ROOT, 'bench', 'sse-client.ts'),
        String(server.port),
        `/v1/runs/${runId}/stream`,
        KEY,
        String(subscribers / clients),
        String(expected),
        '120000',
      ],
      { stdout: 'pipe', stderr: 'inherit' },
    ),
  )
  const outputs = procs.map((p) => new Response(p.stdout).text())
  await Bun.sleep(3000)
  await api(server.url, 'POST', `/v1/workflows/${created.body.data.id}/run`, KEY, {
    runId,
    payload: { outer: Array.from({ length: outer }, (_, i) => i), inner: Array.from({ length: 100 }, (_, i) => i) },
  })
  const results = (await Promise.all(outputs)).map((text) => JSON.parse(text.trim().split('\n').at(-1)!))
  return {
    expected,
    delivered: results.reduce((n, r) => n + r.delivered, 0),
    complete: results.reduce((n, r) => n + r.complete, 0),
    seconds: Math.max(...results.map((r) => r.seconds)),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
  }
}

if (import.meta.main) {
  for (const r of await run())
    console.log(`${r.name}: ${r.value.toLocaleString('en')} ${r.unit}${r.note ? ` (${r.note})` : ''}`)
}
