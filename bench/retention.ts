/**
 * Retention at a steady load: the embedded server (SQLite, synchronous=FULL) with a one-minute
 * AUTOMATON_RUN_RETENTION takes webhook runs of a 2-node workflow at a fixed rate for five
 * minutes (scaled by --scale), and the size of its database file (with the write-ahead log) is
 * sampled every 10 s. Without retention the file grows with every run; with it, the file should
 * stop growing once the first minute of runs starts being pruned.
 *   bun bench/retention.ts [--scale 0.5] [--rate 200]
 */
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { api, BUN, ROOT, startServer } from '../tests/helpers/process.ts'
import { queryDatabase } from '../tests/helpers/stores.ts'
import { tempDir } from '../tests/helpers/tmp.ts'
import { mb, publishTwoNodeWorkflow, rssOf } from './served.ts'
import type { Result } from './store-writes.ts'

const KEY = 'svcsk_bench_retention_bootstrap_key_0123456789'
const SAMPLE_MS = 10_000

const fileSize = (path: string) => (existsSync(path) ? statSync(path).size : 0)

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  const arg = (name: string) =>
    process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : undefined
  const scale = options.scale ?? arg('--scale') ?? 1
  const rate = arg('--rate') ?? 200
  const seconds = Math.max(150, Math.round(300 * scale))
  const dir = tempDir('automaton-bench-retention-')
  const env = {
    AUTOMATON_DATA_DIR: dir.path,
    AUTOMATON_BOOTSTRAP_KEY: KEY,
    AUTOMATON_RUN_RETENTION: '1m',
    AUTOMATON_PRUNE_INTERVAL_MS: '10000',
    AUTOMATON_LOG_LEVEL: 'warn',
  }
  const server = await startServer({ env: { ...env, AUTOMATON_LOG_LEVEL: 'info' } })
  try {
    const w = await publishTwoNodeWorkflow(server.url, KEY)
    const db = join(dir.path, 'automaton.db')
    const size = () => fileSize(db) + fileSize(`${db}-wal`)
    const logSize = () => fileSize(`${db}-wal`)

    const total = rate * seconds
    const client = Bun.spawn(
      [
        BUN,
        join(ROOT, 'bench', 'load-client.ts'),
        `${server.url}/v1/webhooks/${w.triggerSecret}`,
        String(total),
        '16',
        String(rate),
      ],
      {
        stdout: 'pipe',
        stderr: 'inherit',
      },
    )
    const idleRss = rssOf(server.pid)
    const samples: Array<{ at: number; bytes: number; log: number; rss: number }> = []
    const started = performance.now()
    const sample = () =>
      samples.push({ at: (performance.now() - started) / 1000, bytes: size(), log: logSize(), rss: rssOf(server.pid) })
    const sampler = setInterval(sample, SAMPLE_MS)
    const load = JSON.parse(await new Response(client.stdout).text()) as {
      count: number
      errors: number
      rps: number
      p99: number
    }
    clearInterval(sampler)
    sample()
    const [{ n: stored }] = await queryDatabase<{ n: number }>(env, 'SELECT COUNT(*) AS n FROM runs')
    const counts = (await api(server.url, 'GET', `/v1/runs/status-counts?workflowId=${w.id}`, KEY)).body.data

    const at = (s: number) => samples.reduce((best, x) => (Math.abs(x.at - s) < Math.abs(best.at - s) ? x : best)).bytes
    const peak = Math.max(...samples.map((s) => s.bytes))
    const lastHalf = samples.filter((s) => s.at >= seconds / 2)
    const growthLastHalf = lastHalf.at(-1)!.bytes - lastHalf[0].bytes
    const minutes = Array.from({ length: Math.floor(seconds / 60) }, (_, i) => (i + 1) * 60)
    const perMinute = minutes.map((m) => `${m / 60} min ${mb(at(m))} MB`)
    const unprunedEstimate = (at(60) / Math.max(1, 60 * load.rps)) * load.count
    const rss = samples.map((s) => s.rss).filter((r) => r > 0)
    return [
      {
        name: `SQLite, 1-minute retention, ${rate} webhook runs/s for ${Math.round((seconds / 60) * 10) / 10} min: database file + log`,
        value: mb(samples.at(-1)!.bytes),
        unit: 'MB at the end',
        note: `${perMinute.join(', ')}; peak ${mb(peak)} MB, of which the log at most ${mb(Math.max(...samples.map((s) => s.log)))} MB; ${(at(60) / 1024 / Math.max(1, 60 * load.rps)).toFixed(1)} KB per run stored in the first minute; change over the second half ${growthLastHalf >= 0 ? '+' : ''}${mb(growthLastHalf)} MB; without pruning it would be about ${mb(unprunedEstimate)} MB`,
      },
      {
        name: 'SQLite, 1-minute retention: runs stored at the end / runs accepted',
        value: Number(stored),
        unit: `of ${load.count.toLocaleString('en')}`,
        note: `resident memory ${mb(idleRss)} MB idle, ${mb(Math.min(...rss))}–${mb(Math.max(...rss))} MB under this load; status counts still report ${Number(counts.total).toLocaleString('en')} (pruned runs rolled up); ${load.errors} errors; ${Math.round(load.rps)} req/s offered, accept p99 ${Math.round(load.p99)} ms`,
      },
    ]
  } finally {
    await server.stop('SIGTERM')
    dir.remove()
  }
}

if (import.meta.main) {
  for (const r of await run())
    console.log(`${r.name}: ${r.value.toLocaleString('en')} ${r.unit}${r.note ? ` (${r.note})` : ''}`)
}
