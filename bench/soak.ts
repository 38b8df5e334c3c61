/**
 * Overload soak: the embedded server with default settings takes webhook runs of a 2-node
 * workflow at about twice what it executes, for five minutes (scaled by --scale), then the load
 * stops. What an operator needs to hold: resident memory plateaus, answers stay fast (429 with
 * Retry-After once the backlog bound is reached), and every accepted run finishes after the load,
 * once: none lost, none run twice.
 *
 * The default workflow (log → set-variable) is made of pure nodes, so its runs end at admission
 * and never queue. `--http <ms>` makes the first node a POST to a receiver in another process that
 * answers after that many milliseconds: those runs are executed after admission, so they queue in
 * the backlog and meet its bound.
 *   bun bench/soak.ts [--scale 0.2] [--backlog 100000] [--http 20]
 * AUTOMATON_EXECUTION_LAG_TARGET_MS, when set, is passed to the server (0: the executor keeps its
 * full concurrency however late the event loop runs).
 */
import { join } from 'node:path'
import { api, BUN, ROOT, startServer } from '../tests/helpers/process.ts'
import { queryDatabase } from '../tests/helpers/stores.ts'
import { tempDir } from '../tests/helpers/tmp.ts'
import { mb, publishHttpWorkflow, publishTwoNodeWorkflow, rssOf, startReceiver } from './served.ts'
import type { Result } from './store-writes.ts'

const KEY = 'svcsk_bench_soak_bootstrap_key_0123456789abcdef'
const SAMPLE_MS = 10_000
// Open connections of the load: enough that answers are not what limits the offered rate.
const CONNECTIONS = Number(process.env.BENCH_SOAK_CONNECTIONS ?? 128)

interface Load {
  count: number
  accepted: number
  refused: number
  errors: number
  rps: number
  p50: number
  p99: number
  max: number
}

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  const arg = (name: string) =>
    process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : undefined
  const scale = options.scale ?? arg('--scale') ?? 1
  const backlog = arg('--backlog')
  const httpDelay = arg('--http')
  const seconds = Math.max(30, Math.round(300 * scale))
  const dir = tempDir('automaton-bench-soak-')
  const env: Record<string, string> = {
    AUTOMATON_DATA_DIR: dir.path,
    AUTOMATON_BOOTSTRAP_KEY: KEY,
    AUTOMATON_LOG_LEVEL: 'info',
    ...(backlog ? { AUTOMATON_MAX_BACKLOG: String(backlog) } : {}),
    ...(httpDelay !== undefined ? { AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32' } : {}),
    // Passed on, to compare the executor's lag target (operations.md, "Overload") with another or with none.
    ...(process.env.AUTOMATON_EXECUTION_LAG_TARGET_MS
      ? { AUTOMATON_EXECUTION_LAG_TARGET_MS: process.env.AUTOMATON_EXECUTION_LAG_TARGET_MS }
      : {}),
  }
  const receiver = httpDelay !== undefined ? await startReceiver(httpDelay) : null
  const server = await startServer({ env })
  try {
    const w = receiver
      ? await publishHttpWorkflow(server.url, KEY, receiver.url)
      : await publishTwoNodeWorkflow(server.url, KEY)
    const shape = receiver
      ? `an HTTP node answered after ${httpDelay} ms, then set-variable`
      : 'log → set-variable, pure'
    const url = `${server.url}/v1/webhooks/${w.triggerSecret}`
    const counts = async () =>
      (await api(server.url, 'GET', `/v1/runs/status-counts?workflowId=${w.id}`, KEY)).body.data.counts as Record<
        string,
        number
      >
    const load = async (total: number, concurrency: number, rate: number) => {
      const client = Bun.spawn(
        [BUN, join(ROOT, 'bench', 'load-client.ts'), url, String(total), String(concurrency), String(rate)],
        { stdout: 'pipe', stderr: 'inherit' },
      )
      return JSON.parse(await new Response(client.stdout).text()) as Load
    }
    const drain = async () => {
      for (;;) {
        const c = await counts()
        if (c.running === 0) return c
        await Bun.sleep(500)
      }
    }

    // What the server executes at saturation: finished runs per second over a short burst.
    const before = (await counts()).success
    const t0 = performance.now()
    const warm = await load(Math.round(20_000 * Math.min(1, scale * 2 + 0.2)), 32, 0)
    await drain()
    const capacity = ((await counts()).success - before) / ((performance.now() - t0) / 1000)
    const idleRss = rssOf(server.pid)

    // The soak: twice that, for `seconds`.
    const rate = Math.round(capacity * 2)
    const samples: Array<{ at: number; rss: number; backlog: number }> = []
    const started = performance.now()
    const sampler = setInterval(async () => {
      const ready = (await fetch(`${server.url}/readyz`)
        .then((r) => r.json())
        .catch(() => ({}))) as { backlog?: { total: number } }
      samples.push({
        at: Math.round((performance.now() - started) / 1000),
        rss: rssOf(server.pid),
        backlog: ready.backlog?.total ?? -1,
      })
    }, SAMPLE_MS)
    const successBefore = (await counts()).success
    const soak = await load(rate * seconds, CONNECTIONS, rate)
    clearInterval(sampler)
    const loadEnded = performance.now()
    const after = await drain()
    const drainSeconds = (performance.now() - loadEnded) / 1000
    const [{ n: stored }] = await queryDatabase<{ n: number }>(
      env,
      'SELECT COUNT(*) AS n FROM runs WHERE workflow_id = $1',
      [w.id],
    )
    const [{ n: doubled }] = await queryDatabase<{ n: number }>(
      env,
      "SELECT COUNT(*) AS n FROM (SELECT run_id FROM events WHERE type IN ('run.succeeded', 'run.failed', 'run.partial', 'run.cancelled') AND workflow_id = $1 GROUP BY run_id HAVING COUNT(*) > 1) AS d",
      [w.id],
    ).catch(() => [{ n: -1 }])
    const rss = samples.map((s) => s.rss)
    const finishedNow = after.success - successBefore
    return [
      {
        name: `Overload soak, embedded SQLite (${shape}): ${rate.toLocaleString('en')} webhooks/s offered (2 × the ${Math.round(capacity).toLocaleString('en')} runs/s executed) for ${seconds} s`,
        value: mb(Math.max(...rss)),
        unit: 'MB peak resident memory',
        note: `idle after warm-up ${mb(idleRss)} MB; every ${SAMPLE_MS / 1000} s: ${samples.map((s) => `${mb(s.rss)} MB (backlog ${s.backlog.toLocaleString('en')})`).join(', ')}`,
      },
      {
        name: 'Overload soak: answer latency p99 (accepted and refused)',
        value: Math.round(soak.p99 * 10) / 10,
        unit: 'ms',
        note: `p50 ${Math.round(soak.p50 * 10) / 10} ms, max ${Math.round(soak.max)} ms; ${soak.accepted.toLocaleString('en')} accepted, ${soak.refused.toLocaleString('en')} refused with 429, ${soak.errors} errors, ${Math.round(soak.rps).toLocaleString('en')} answers/s`,
      },
      {
        name: 'Overload soak: accepted runs finished after the load',
        value: finishedNow,
        unit: `of ${soak.accepted.toLocaleString('en')}`,
        note: `drained in ${Math.round(drainSeconds)} s after the load stopped; runs stored ${Number(stored).toLocaleString('en')} (warm-up ${warm.accepted.toLocaleString('en')} + soak ${soak.accepted.toLocaleString('en')}); runs finished twice: ${doubled}; still running ${after.running}`,
      },
    ]
  } finally {
    await server.stop('SIGTERM')
    receiver?.stop()
    dir.remove()
  }
}

if (import.meta.main) {
  for (const r of await run())
    console.log(`${r.name}: ${r.value.toLocaleString('en')} ${r.unit}${r.note ? ` (${r.note})` : ''}`)
}
