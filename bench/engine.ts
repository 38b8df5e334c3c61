/**
 * The engine benchmarks of the embedded mode (SQLite, synchronous=FULL), server and load
 * generator on one machine, each in its own process:
 *   1. webhook → run durably accepted (runs/s, p99), against a bare Bun server doing the same
 *      durable insert (the ceiling), as a ratio;
 *   2. end-to-end 5-node runs per second (webhook → success);
 *   3. webhook → first node started, p50/p99, at half of the maximum load;
 *   4. resident memory added by 100,000 waiting runs.
 *   bun bench/engine.ts [--scale 0.25]
 */
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { api, BUN, ROOT, startServer, type ServerProcess } from '../tests/helpers/process.ts'
import { queryDatabase } from '../tests/helpers/stores.ts'
import { tempDir } from '../tests/helpers/tmp.ts'
import type { Result } from './store-writes.ts'

export const KEY = 'svcsk_bench_bootstrap_key_0123456789abcdefghij'

export interface ClientResult {
  count: number
  accepted: number
  refused: number
  errors: number
  seconds: number
  rps: number
  p50: number
  p90: number
  p99: number
  sendTimes?: number[]
  runIds?: string[]
}

/** Runs the load generator in its own process; `total` is a count of requests, or seconds as `15s`. */
export async function client(
  url: string,
  total: number | string,
  concurrency: number,
  rate = 0,
  sendTimes = false,
): Promise<ClientResult> {
  const child = Bun.spawn(
    [BUN, join(ROOT, 'bench', 'load-client.ts'), url, String(total), String(concurrency), String(rate)],
    {
      stdout: 'pipe',
      stderr: 'inherit',
      env: { ...process.env, ...(sendTimes ? { BENCH_SEND_TIMES: '1' } : {}) },
    },
  )
  const out = await new Response(child.stdout).text()
  await child.exited
  return JSON.parse(out.trim().split('\n').at(-1)!)
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

/** The bare server's figures under the same load: SQLite in a fresh file, or the Postgres at `postgresUrl`. */
export async function ceiling(
  total: number | string,
  concurrency: number,
  postgresUrl?: string,
): Promise<ClientResult> {
  const dir = tempDir('automaton-ceiling-')
  const server = Bun.spawn(
    [BUN, join(ROOT, 'bench', 'ceiling-server.ts'), postgresUrl ?? join(dir.path, 'ceiling.db')],
    { stdout: 'pipe', stderr: 'inherit' },
  )
  const reader = server.stdout.getReader()
  const port = Number(new TextDecoder().decode((await reader.read()).value).trim())
  try {
    await client(`http://127.0.0.1:${port}/hook`, 2000, concurrency)
    return await client(`http://127.0.0.1:${port}/hook`, total, concurrency)
  } finally {
    server.kill('SIGKILL')
    await server.exited
    dir.remove()
  }
}

export async function live(server: ServerProcess, nodes: Record<string, unknown>) {
  const created = await api(server.url, 'POST', '/v1/workflows', KEY, {
    definition: { triggerNodeIds: ['root'], nodes },
  })
  if (created.status !== 200) throw new Error(JSON.stringify(created.body))
  return (await api(server.url, 'POST', `/v1/workflows/${created.body.data.id}/publish`, KEY)).body.data as {
    id: string
    triggerSecret: string
  }
}

export async function settle(
  server: ServerProcess,
  workflowId: string,
  expected: number,
  status: 'success' | 'waiting',
  timeoutMs = 300_000,
) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const counts = (await api(server.url, 'GET', `/v1/runs/status-counts?workflowId=${workflowId}`, KEY)).body.data
      .counts
    if (counts[status] >= expected) return
    if (Date.now() > deadline) throw new Error(`only ${counts[status]} of ${expected} runs reached ${status}`)
    await Bun.sleep(200)
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  const scale = options.scale ?? Number(process.argv[process.argv.indexOf('--scale') + 1] || 1)
  const concurrency = 128
  const acceptTotal = Math.round(40_000 * scale)
  const e2eTotal = Math.round(20_000 * scale)
  const waitingTotal = Math.round(100_000 * scale)
  const results: Result[] = []

  const bare = await ceiling(acceptTotal, concurrency)

  const dir = tempDir('automaton-bench-')
  const env = {
    AUTOMATON_DATA_DIR: dir.path,
    AUTOMATON_BOOTSTRAP_KEY: KEY,
    AUTOMATON_LOG_LEVEL: 'info',
    AUTOMATON_WORKER_CONCURRENCY: '512',
  }
  const server = await startServer({ env })
  server.exited.then((code) => console.error(`automaton server exited with ${code}:\n${server.logs().slice(-3000)}`))
  try {
    const one = await live(server, {
      root: { type: 'manual', children: ['log'] },
      log: { type: 'log', payload: { message: 'order {{$trigger.body.order.id}}' } },
    })
    const five = await live(server, {
      root: { type: 'manual', children: ['a'] },
      a: { type: 'log', payload: { message: 'order {{$trigger.body.order.id}}' }, children: ['check'] },
      check: {
        type: 'if',
        payload: { condition: { $and: [{ '{{$trigger.body.order.amount}}': { $gt: 100 } }] } },
        children: ['big', 'small'],
      },
      big: {
        type: 'pluck',
        branch: 'then',
        payload: { array: ['{{$trigger.body.order}}'], fields: ['id', 'amount'] },
        children: ['note'],
      },
      small: { type: 'log', branch: 'else', payload: { message: 'small' } },
      note: { type: 'set-variable', payload: { name: 'last', value: '{{big.result.items.0.id}}' }, children: ['done'] },
      done: { type: 'log', payload: { message: 'done {{$vars.last}}' } },
    })
    const waiting = await live(server, {
      root: { type: 'manual', children: ['hold'] },
      hold: { type: 'delay', payload: { delayMs: 3_600_000 } },
    })

    // 1. Accepting webhook runs.
    await client(`${server.url}/v1/webhooks/${one.triggerSecret}`, Math.min(2000, acceptTotal), concurrency)
    const accept = await client(`${server.url}/v1/webhooks/${one.triggerSecret}`, acceptTotal, concurrency)
    await settle(server, one.id, acceptTotal, 'success')
    results.push(
      {
        name: 'bare Bun + SQLite durable insert (ceiling): accepted/s',
        value: Math.round(bare.rps),
        unit: 'req/s',
        note: `p99 ${bare.p99.toFixed(1)} ms`,
      },
      {
        name: 'webhook → run durably accepted',
        value: Math.round(accept.rps),
        unit: 'runs/s',
        note: `p50 ${accept.p50.toFixed(1)} ms, p99 ${accept.p99.toFixed(1)} ms; ${((accept.rps / bare.rps) * 100).toFixed(0)}% of the ceiling; target ≥ 20,000/s, p99 < 10 ms`,
      },
    )

    // 2. End-to-end 5-node runs.
    const e2eStart = performance.timeOrigin + performance.now()
    const e2e = await client(`${server.url}/v1/webhooks/${five.triggerSecret}`, e2eTotal, concurrency)
    await settle(server, five.id, e2eTotal, 'success')
    const span = await queryDatabase<{ first: number; last: number }>(
      env,
      'SELECT MIN(started_at) AS first, MAX(finished_at) AS last FROM runs WHERE workflow_id = $1',
      [five.id],
    )
    const e2eRate = e2eTotal / ((Number(span[0].last) - Number(span[0].first)) / 1000)
    results.push({
      name: 'end-to-end 5-node runs (webhook → success)',
      value: Math.round(e2eRate),
      unit: 'runs/s',
      note: `accepting at ${Math.round(e2e.rps)}/s; client wall ${((performance.timeOrigin + performance.now() - e2eStart) / 1000).toFixed(1)} s; target ≥ 8,000/s`,
    })

    // 3. Latency to the first node at half of the maximum load.
    const halfRate = Math.max(50, Math.round(e2eRate / 2))
    const sample = Math.round(halfRate * 5 * Math.min(1, scale * 4))
    const timed = await client(`${server.url}/v1/webhooks/${five.triggerSecret}`, sample, concurrency, halfRate, true)
    await settle(server, five.id, e2eTotal + sample, 'success')
    const started = await queryDatabase<{ run_id: string; at: number }>(
      env,
      "SELECT run_id, at FROM events WHERE workflow_id = $1 AND type = 'node.started' AND node_id = 'a'",
      [five.id],
    )
    const startedAt = new Map(started.map((r) => [r.run_id, Number(r.at)]))
    const delays = timed
      .runIds!.map((id, i) => (startedAt.get(id) ?? Number.NaN) - timed.sendTimes![i])
      .filter((d) => Number.isFinite(d))
    results.push({
      name: `webhook → first node started at ${halfRate} runs/s (half load)`,
      value: Number(percentile(delays, 50).toFixed(1)),
      unit: 'ms p50',
      note: `p99 ${percentile(delays, 99).toFixed(1)} ms over ${delays.length} runs (journal times have 1 ms resolution); target p50 < 2 ms, p99 < 10 ms`,
    })

    // 4. Memory held by waiting runs.
    await Bun.sleep(2000)
    const before = rssMb(server.pid)
    await client(`${server.url}/v1/webhooks/${waiting.triggerSecret}`, waitingTotal, concurrency)
    await settle(server, waiting.id, waitingTotal, 'waiting')
    await Bun.sleep(5000)
    const after = rssMb(server.pid)
    results.push({
      name: `resident memory added by ${waitingTotal.toLocaleString('en')} waiting runs`,
      value: Math.round(after - before),
      unit: 'MB',
      note: `RSS ${before.toFixed(0)} → ${after.toFixed(0)} MB; target < 100 MB`,
    })
  } catch (error) {
    console.error(server.logs().slice(-4000))
    throw error
  } finally {
    await server.stop('SIGKILL')
    dir.remove()
  }
  return results
}

if (import.meta.main) {
  for (const r of await run())
    console.log(`${r.name}: ${r.value.toLocaleString('en')} ${r.unit}${r.note ? ` (${r.note})` : ''}`)
}
