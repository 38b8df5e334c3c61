/**
 * Situation universe search on the embedded store (SQLite): ranked searches through the service
 * (what GET /v1/situation/universe does after authentication), over the shipped universe and
 * over an import of 100,000 tickers (scaled by --scale). Queries mix exact symbols, symbol
 * prefixes, name words and text inside names.
 *   bun bench/universe.ts [--scale 0.2]
 */
import { loadConfig } from '../core/config.ts'
import { silentLogger } from '../core/ports/logger.ts'
import { openSystem } from '../main.ts'
import { tempDir } from '../tests/helpers/tmp.ts'
import type { Result } from './store-writes.ts'

const QUERIES = [
  'aapl',
  'apple',
  '$AAPL',
  'brk.b',
  'btc',
  'bit',
  'micro',
  'bank of',
  'coin',
  'a',
  'ms',
  'tesla',
  'eth',
  'sol',
  'nas',
  'index',
  'gold',
  'corp',
  'tech',
  'energy',
]
const WORDS = [
  'global',
  'united',
  'american',
  'pacific',
  'north',
  'digital',
  'energy',
  'health',
  'capital',
  'systems',
  'holdings',
  'networks',
  'foods',
  'motors',
  'bank',
  'solar',
  'bio',
  'data',
  'semiconductor',
  'mining',
  'gold',
  'silver',
  'water',
  'logistics',
  'media',
  'retail',
  'pharma',
  'robotics',
  'cloud',
  'quantum',
]

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

async function measure(query: (q: string) => Promise<unknown>, rounds: number) {
  const times: number[] = []
  for (let i = 0; i < rounds; i++) {
    const q = QUERIES[i % QUERIES.length]
    const started = performance.now()
    await query(q)
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return { p50: percentile(times, 50), p99: percentile(times, 99), max: times.at(-1)! }
}

export async function run(options: { scale?: number } = {}): Promise<Result[]> {
  const scale = options.scale ?? 1
  const dir = tempDir('automaton-bench-universe-')
  const system = await openSystem(loadConfig({ AUTOMATON_DATA_DIR: dir.path }), { logger: silentLogger, engine: false })
  try {
    const search = (q: string) => system.universe.query({ q, limit: 20 })
    const rounds = Math.max(500, Math.round(4000 * scale))
    await measure(search, 200)
    const shipped = await measure(search, rounds)
    const count = Math.max(10_000, Math.round(100_000 * scale))
    const rows = ['symbol,name,exchange,type,rank']
    for (let i = 0; i < count; i++) {
      const a = WORDS[i % WORDS.length]
      const b = WORDS[Math.floor(i / WORDS.length) % WORDS.length]
      const letters = (i + 17).toString(36).toUpperCase()
      rows.push(
        `X${letters},${a[0].toUpperCase()}${a.slice(1)} ${b[0].toUpperCase()}${b.slice(1)} ${i} Inc.,TEST,${i % 10 === 0 ? 'crypto' : 'equity'},${i + 1}`,
      )
    }
    const started = performance.now()
    await system.universe.import(rows.join('\n'), 'bench')
    const importSeconds = (performance.now() - started) / 1000
    await measure(search, 200)
    const large = await measure(search, rounds)
    const f = (n: number) => Math.round(n * 100) / 100
    return [
      {
        name: 'situation universe search, shipped universe (SQLite): p99',
        value: f(shipped.p99),
        unit: 'ms',
        note: `p50 ${f(shipped.p50)} ms, max ${f(shipped.max)} ms over ${rounds} queries; target p99 < 5 ms`,
      },
      {
        name: `situation universe search, ${count.toLocaleString('en')} tickers imported (SQLite): p99`,
        value: f(large.p99),
        unit: 'ms',
        note: `p50 ${f(large.p50)} ms, max ${f(large.max)} ms over ${rounds} queries; the import took ${f(importSeconds)} s; target p99 < 5 ms`,
      },
    ]
  } finally {
    await system.close()
    dir.remove()
  }
}

if (import.meta.main) {
  for (const r of await run())
    console.log(`${r.name}: ${r.value.toLocaleString('en')} ${r.unit}${r.note ? ` (${r.note})` : ''}`)
}
