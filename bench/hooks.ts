/**
 * Execution-hook delivery: journal events recorded through the engine's recorder (so the outbox
 * writes their deliveries in the same transaction, as for real runs) and sent to a receiver in
 * another process that answers after 200 ms. SQLite with synchronous=FULL, and Postgres from
 * AUTOMATON_TEST_DATABASE_URL when it is set:
 *   1. deliveries/s with a backlog (the events are recorded faster than they can be sent);
 *   2. run event → first attempt, p50/p99, with events arriving at a steady rate.
 *   bun bench/hooks.ts [--scale 0.25] [--rate 5000]
 */
import { loadConfig } from '../core/config.ts'
import { type DomainEvent, publishEvents } from '../core/domain-events.ts'
import { silentLogger } from '../core/ports/logger.ts'
import { openSystem, type System } from '../main.ts'
import { freshPostgresUrl } from '../tests/helpers/services.ts'
import { tempDir } from '../tests/helpers/tmp.ts'
import type { Result } from './store-writes.ts'
import { organizationWithKey, startReceiver } from './served.ts'

const EVENTS_PER_RUN = 5

/** One synthetic run's worth of events, recorded and published the way the run journal does. */
async function recordRun(system: System, organizationId: string, n: number) {
  const runId = `run_bench${String(n).padStart(10, '0')}`
  const at = system.clock.now()
  const events: DomainEvent[] = Array.from({ length: EVENTS_PER_RUN }, (_, i) => ({
    organizationId,
    workflowId: 'wf_bench',
    runId,
    seq: i + 1,
    type: i === 0 ? 'node.started' : 'node.succeeded',
    nodeId: `n${i}`,
    data: { key: `n${i}`, attempt: 1, result: { status: 200, body: { ok: true, order: `A-${n}`, amount: 4200 } } },
    at,
  }))
  const recorded = await system.store.write((tx) => system.engine.recorder.record(tx, events))
  publishEvents(system.bus, recorded)
}

/** Records `runs` runs at `rate` events per second (0: as fast as the store takes them). */
async function generate(system: System, organizationId: string, runs: number, rate: number, offset: number) {
  const started = performance.now()
  const writes: Promise<void>[] = []
  for (let i = 0; i < runs; i++) {
    if (rate > 0) {
      const due = (i * EVENTS_PER_RUN * 1000) / rate
      const wait = due - (performance.now() - started)
      if (wait > 1) await Bun.sleep(wait)
    } else if (i % 200 === 0) await Bun.sleep(0)
    writes.push(recordRun(system, organizationId, offset + i))
  }
  await Promise.all(writes)
}

interface Row {
  created_at: number
  delivered_at: number | null
  attempts: string
  status: string
}

async function settle(system: System, expected: number, timeoutMs = 600_000): Promise<Row[]> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    // Counts through the partial index of unfinished rows, not a scan of every delivery.
    const [{ n }] = await system.store.all<{ n: number }>(
      'SELECT COUNT(*) AS n FROM hook_deliveries WHERE due_at IS NOT NULL',
    )
    if (Number(n) === 0) break
    if (Date.now() > deadline) throw new Error(`${n} of ${expected} deliveries are still unfinished`)
    await Bun.sleep(100)
  }
  const rows = await system.store.all<Row>('SELECT created_at, delivered_at, attempts, status FROM hook_deliveries')
  const failed = rows.filter((r) => r.status !== 'success').length
  if (rows.length !== expected || failed > 0)
    throw new Error(`${rows.length} deliveries for ${expected} events, ${failed} not delivered`)
  await system.store.write((tx) => tx.run('DELETE FROM hook_deliveries'))
  return rows
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

const firstAttemptAt = (row: Row) => (JSON.parse(row.attempts) as Array<{ at: number }>)[0].at

async function measure(
  label: string,
  env: Record<string, string>,
  receiverUrl: string,
  scale: number,
  rate: number,
): Promise<Result[]> {
  const concurrency = 2048
  const system = await openSystem(
    loadConfig({
      ...env,
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      AUTOMATON_HOOK_CONCURRENCY: String(concurrency),
      AUTOMATON_LOG_LEVEL: 'warn',
    }),
    { logger: silentLogger },
  )
  try {
    const org = await organizationWithKey(system, 'bench')
    const key = org.key
    const created = await system.app.handle(
      new Request('http://localhost/v1/execution-webhooks', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'bench', url: receiverUrl }),
      }),
    )
    if (created.status !== 200) throw new Error(`hook create failed: ${await created.text()}`)

    // Warm up connections, caches and the JIT.
    await generate(system, org.id, 400, 0, 0)
    await settle(system, 400 * EVENTS_PER_RUN)

    // 1. Throughput with a backlog.
    const backlogRuns = Math.round(8000 * scale)
    const cpu = process.cpuUsage()
    await generate(system, org.id, backlogRuns, 0, 1_000_000)
    const backlog = await settle(system, backlogRuns * EVENTS_PER_RUN)
    const used = process.cpuUsage(cpu)
    // CPU of this process per delivery (recording the event included): a figure other load on the machine does not change much.
    const cpuPerDelivery = (used.user + used.system) / backlog.length
    const first = Math.min(...backlog.map(firstAttemptAt))
    const last = Math.max(...backlog.map((r) => Number(r.delivered_at)))
    const throughput = backlog.length / ((last - first) / 1000)

    // 2. Latency at a steady rate.
    const steadyRuns = Math.round((rate * 10 * scale) / EVENTS_PER_RUN)
    const t0 = Date.now()
    await generate(system, org.id, steadyRuns, rate, 2_000_000)
    const offeredSeconds = (Date.now() - t0) / 1000
    const steady = await settle(system, steadyRuns * EVENTS_PER_RUN)
    const delays = steady.map((r) => firstAttemptAt(r) - Number(r.created_at))
    const span =
      (Math.max(...steady.map((r) => Number(r.delivered_at))) - Math.min(...steady.map((r) => Number(r.created_at)))) /
      1000
    return [
      {
        name: `${label}: hook deliveries/s, ${backlog.length.toLocaleString('en')} queued, receiver answers after 200 ms`,
        value: Math.round(throughput),
        unit: 'deliveries/s',
        note: `${Math.round(cpuPerDelivery)} µs of CPU each; at most ${concurrency.toLocaleString('en')} in flight; target ≥ 5,000/s`,
      },
      {
        name: `${label}: run event → first attempt at ${rate.toLocaleString('en')} events/s`,
        value: percentile(delays, 50),
        unit: 'ms p50',
        note: `p99 ${percentile(delays, 99)} ms, max ${Math.max(...delays)} ms over ${steady.length.toLocaleString('en')} deliveries offered in ${offeredSeconds.toFixed(1)} s (${Math.round(steady.length / span).toLocaleString('en')}/s delivered); target p99 < 100 ms`,
      },
    ]
  } finally {
    await system.close()
  }
}

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  const arg = (name: string) =>
    process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : undefined
  const scale = options.scale ?? arg('--scale') ?? 1
  const rate = arg('--rate') ?? 5000
  const receiver = await startReceiver(200)
  const results: Result[] = []
  try {
    const dir = tempDir('automaton-bench-hooks-')
    results.push(
      ...(await measure('SQLite (synchronous=FULL)', { AUTOMATON_DATA_DIR: dir.path }, receiver.url, scale, rate)),
    )
    dir.remove()
    if (process.env.AUTOMATON_TEST_DATABASE_URL) {
      const pg = await freshPostgresUrl()
      const pgDir = tempDir('automaton-bench-hooks-')
      results.push(
        ...(await measure(
          'Postgres',
          { AUTOMATON_DATA_DIR: pgDir.path, AUTOMATON_DATABASE_URL: pg.url },
          receiver.url,
          scale,
          rate,
        )),
      )
      await pg.drop()
      pgDir.remove()
    } else {
      console.warn('!!! Postgres hook benchmark skipped: AUTOMATON_TEST_DATABASE_URL is not set')
    }
  } finally {
    receiver.stop()
  }
  return results
}

if (import.meta.main) {
  for (const r of await run())
    console.log(`${r.name}: ${r.value.toLocaleString('en')} ${r.unit}${r.note ? ` (${r.note})` : ''}`)
}
