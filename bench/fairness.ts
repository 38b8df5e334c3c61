/**
 * Fairness between organizations among runs waiting to start: organization A queues tens of
 * thousands of runs (50,000 at scale 1, each one HTTP call to a local receiver), then organization
 * B triggers 10; how long B's runs wait from admission to their first node, and how many runs A
 * had not started then. Without fairness B's runs would wait behind all of A's. Once on SQLite in
 * one process, and, with AUTOMATON_TEST_DATABASE_URL and AUTOMATON_TEST_NATS_URL, on Postgres and
 * NATS with an API process and two workers.
 *   bun bench/fairness.ts [--scale 0.25]
 */
import { loadConfig } from '../core/config.ts'
import { silentLogger } from '../core/ports/logger.ts'
import { openSystem, type System } from '../main.ts'
import { freshPostgresUrl, TEST_DATABASE_URL, TEST_NATS_URL } from '../tests/helpers/services.ts'
import { tempDir } from '../tests/helpers/tmp.ts'
import { organizationWithKey } from './served.ts'
import type { Result } from './store-writes.ts'

const B_RUNS = 10

async function call(system: System, key: string | null, method: string, path: string, body?: unknown) {
  const response = await system.app.handle(
    new Request(`http://localhost${path}`, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  )
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : null }
}

/** A live workflow of one HTTP call to the receiver; answers its webhook secret. */
async function calling(system: System, key: string, url: string): Promise<string> {
  const definition = {
    triggerNodeIds: ['root'],
    nodes: {
      root: { type: 'manual', payload: {}, children: ['call'] },
      call: { type: 'http-request', payload: { url }, children: [] },
    },
  }
  const created = await call(system, key, 'POST', '/v1/workflows', { definition })
  if (created.status !== 200) throw new Error(`create failed: ${JSON.stringify(created.body)}`)
  const live = await call(system, key, 'POST', `/v1/workflows/${created.body.data.id}/publish`)
  return live.body.data.triggerSecret
}

/** Triggers `n` runs through the webhook, `parallel` requests at a time; answers their run ids. */
async function trigger(system: System, secret: string, n: number, parallel: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, n - i) }, () =>
      call(system, null, 'POST', `/v1/webhooks/${secret}`, {}),
    )
    for (const r of await Promise.all(batch)) {
      if (r.status !== 200) throw new Error(`webhook answered ${r.status}: ${JSON.stringify(r.body)}`)
      ids.push(r.body.data.runIds[0])
    }
  }
  return ids
}

/** When a run's first node started (ms since the epoch), once it has. */
async function startOf(system: System, key: string, runId: string): Promise<number> {
  for (;;) {
    const started = (await call(system, key, 'GET', `/v1/runs/${runId}`)).body.data.nodes?.call?.startedAt
    if (started) return Date.parse(started)
    await Bun.sleep(20)
  }
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]

/** Floods organization A through `admit`, then times B's runs; `admit` executes them or its workers do. */
async function measure(admit: System, mode: string, queued: number, url: string): Promise<Result> {
  const a = await calling(admit, (await organizationWithKey(admit, 'flood')).key, url)
  const bKey = (await organizationWithKey(admit, 'small')).key
  const b = await calling(admit, bKey, url)
  await trigger(admit, a, queued, 500)
  const backlog = (await call(admit, null, 'GET', '/readyz')).body?.backlog?.total ?? 0
  // Each of B's runs is triggered on its own: its admission answered, then how long it waits to start.
  const answered: number[] = []
  const bRuns: string[] = []
  for (let i = 0; i < B_RUNS; i++) {
    bRuns.push(...(await trigger(admit, b, 1, 1)))
    answered.push(Date.now())
  }
  const starts = await Promise.all(bRuns.map((id) => startOf(admit, bKey, id)))
  const waits = starts.map((at, i) => Math.max(0, at - answered[i]))
  return {
    name: `fairness (${mode}): ${B_RUNS} runs of one organization, admission → start, while another has ${queued.toLocaleString('en')} queued`,
    value: Math.max(...waits),
    unit: 'ms (slowest)',
    note: `median ${median(waits)} ms, from each webhook's answer to its run's first node; the other organization had ${backlog.toLocaleString('en')} runs not started when they came`,
  }
}

/** One process on SQLite that executes what it admits. */
async function embedded(queued: number, url: string): Promise<Result> {
  const dir = tempDir('automaton-fairness-')
  const system = await openSystem(
    loadConfig({
      AUTOMATON_DATA_DIR: dir.path,
      AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      AUTOMATON_MAX_BACKLOG: String(4 * queued + 1000),
      AUTOMATON_LOG_LEVEL: 'warn',
    }),
    { logger: silentLogger },
  )
  try {
    return await measure(system, 'SQLite, one process', queued, url)
  } finally {
    await system.close()
    dir.remove()
  }
}

/** An API process and two workers on Postgres and NATS (in this process, each a system of its own). */
async function scaledOut(queued: number, url: string, natsUrl: string): Promise<Result> {
  const pg = await freshPostgresUrl()
  const dir = tempDir('automaton-fairness-')
  const config = loadConfig({
    AUTOMATON_DATA_DIR: dir.path,
    AUTOMATON_DATABASE_URL: pg.url,
    AUTOMATON_NATS_URL: natsUrl,
    AUTOMATON_NATS_STREAM: `BENCH_FAIRNESS_${Date.now()}`,
    AUTOMATON_MASTER_KEY: btoa(String.fromCharCode(...new Uint8Array(32).fill(7))),
    AUTOMATON_ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    AUTOMATON_MAX_BACKLOG: String(4 * queued + 1000),
    AUTOMATON_FINISH_AT_ADMISSION: 'false',
    AUTOMATON_LOG_LEVEL: 'warn',
  })
  const api = await openSystem(config, { logger: silentLogger, role: 'api' })
  const workers = [
    await openSystem(config, { logger: silentLogger, role: 'worker' }),
    await openSystem(config, { logger: silentLogger, role: 'worker' }),
  ]
  try {
    return await measure(api, 'Postgres and NATS, an API process and two workers', queued, url)
  } finally {
    for (const w of workers) await w.close()
    await api.close()
    await pg.drop()
    dir.remove()
  }
}

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  const scale = options.scale ?? Number(process.argv[process.argv.indexOf('--scale') + 1] || 1)
  const queued = Math.round(50_000 * scale)
  const receiver = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => Response.json({ ok: true }) })
  const url = `http://127.0.0.1:${receiver.port}/call`
  try {
    const results = [await embedded(queued, url)]
    if (TEST_DATABASE_URL && TEST_NATS_URL) results.push(await scaledOut(queued, url, TEST_NATS_URL))
    else
      console.error('fairness: set AUTOMATON_TEST_DATABASE_URL and AUTOMATON_TEST_NATS_URL for the scaled-out figure')
    return results
  } finally {
    receiver.stop(true)
  }
}

if (import.meta.main) for (const r of await run()) console.log(`${r.name}: ${r.value} ${r.unit} (${r.note ?? ''})`)
