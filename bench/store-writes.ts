/**
 * Durable writes per second through the store port, for both adapters: many concurrent
 * single-row writes (group-committed) against the same writes one at a time (a commit each).
 * SQLite runs with synchronous=FULL, the durable default, once as a plain store (the log flushed
 * inside each COMMIT) and once as the server opens it (the log flushed on the runtime's I/O
 * threads, the checkpoints on a worker thread); the notes give the event loop's longest stall
 * under the group-committed load, which is what requests waiting on the same thread feel.
 *
 *   bun bench/store-writes.ts            (Postgres from AUTOMATON_TEST_DATABASE_URL when set)
 */
import { join } from 'node:path'
import type { Store, WriteOptions } from '../core/ports/store.ts'
import { postgresStore } from '../adapters/postgres/store.ts'
import { sqliteStore } from '../adapters/sqlite/store.ts'
import { freshPostgresUrl } from '../tests/helpers/services.ts'
import { tempDir } from '../tests/helpers/tmp.ts'

export interface Result {
  name: string
  value: number
  unit: string
  note?: string
}

const MIGRATION = [
  {
    version: 1,
    name: 'bench',
    up: ['CREATE TABLE bench_rows (id TEXT PRIMARY KEY, at BIGINT NOT NULL, body TEXT NOT NULL)'],
  },
]
const BODY = JSON.stringify({ event: 'payment_intent.succeeded', amount: 4200, currency: 'usd', note: 'x'.repeat(200) })

async function concurrent(
  store: Store,
  total: number,
  inFlight: number,
  prefix = 'c',
  options?: WriteOptions,
): Promise<number> {
  let next = 0
  const start = performance.now()
  const worker = async () => {
    while (next < total) {
      const i = next++
      await store.write(
        (tx) =>
          tx.run('INSERT INTO bench_rows (id, at, body) VALUES ($1, $2, $3)', [`${prefix}${i}`, Date.now(), BODY]),
        options,
      )
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  return total / ((performance.now() - start) / 1000)
}

async function oneByOne(store: Store, total: number): Promise<number> {
  const start = performance.now()
  for (let i = 0; i < total; i++) {
    await store.write((tx) =>
      tx.run('INSERT INTO bench_rows (id, at, body) VALUES ($1, $2, $3)', [`s${i}`, Date.now(), BODY]),
    )
  }
  return total / ((performance.now() - start) / 1000)
}

/** Runs `work` and measures the longest gap between turns of a 1 ms timer meanwhile. */
async function withStalls<T>(work: () => Promise<T>): Promise<{ value: T; longestStallMs: number }> {
  let last = performance.now()
  let longest = 0
  const timer = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
  }, 1)
  try {
    return { value: await work(), longestStallMs: longest }
  } finally {
    clearInterval(timer)
  }
}

async function measure(label: string, store: Store, scale: number): Promise<Result[]> {
  await store.migrate(MIGRATION)
  const serial = await oneByOne(store, 2000 * scale)
  const { value: grouped, longestStallMs } = await withStalls(() => concurrent(store, 50_000 * scale, 1000))
  const pipelined = await concurrent(store, 50_000 * scale, 1000, 'p', { concurrent: true })
  await store.close()
  return [
    { name: `${label}: durable writes/s, one at a time`, value: Math.round(serial), unit: 'writes/s' },
    {
      name: `${label}: durable writes/s, 1,000 in flight (group commit)`,
      value: Math.round(grouped),
      unit: 'writes/s',
      note: `${(grouped / serial).toFixed(1)}× one at a time; longest event-loop stall ${longestStallMs.toFixed(1)} ms`,
    },
    {
      name: `${label}: durable writes/s, 1,000 in flight, concurrent writes`,
      value: Math.round(pipelined),
      unit: 'writes/s',
      note: `${(pipelined / grouped).toFixed(1)}× the group commit in turn`,
    },
  ]
}

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  const scale = options.scale ?? 1
  const dir = tempDir('automaton-bench-')
  const results = await measure(
    'SQLite (synchronous=FULL)',
    sqliteStore({ path: join(dir.path, 'bench.db'), synchronous: 'full' }),
    scale,
  )
  results.push(
    ...(await measure(
      'SQLite (synchronous=FULL) as the server opens it',
      sqliteStore({
        path: join(dir.path, 'served.db'),
        synchronous: 'full',
        backgroundSync: true,
        backgroundCheckpoint: true,
      }),
      scale,
    )),
  )
  dir.remove()
  if (process.env.AUTOMATON_TEST_DATABASE_URL) {
    const pg = await freshPostgresUrl()
    results.push(...(await measure('Postgres', postgresStore({ url: pg.url, poolSize: 10 }), scale)))
    await pg.drop()
  } else {
    console.warn('!!! Postgres store benchmark skipped: AUTOMATON_TEST_DATABASE_URL is not set')
  }
  return results
}

if (import.meta.main) {
  for (const r of await run())
    console.log(`${r.name}: ${r.value.toLocaleString('en')} ${r.unit}${r.note ? ` (${r.note})` : ''}`)
}
