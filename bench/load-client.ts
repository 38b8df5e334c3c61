/**
 * A load generator, run as its own process so it does not share an event loop with the server:
 *   bun bench/load-client.ts <url> <total> <concurrency> [rate per second, 0 = as fast as possible] [unique-key prefix]
 * A total written as seconds (`15s`) sends for that long instead of a count.
 * Each request POSTs {"i": n}; a 429 counts as refused, apart from errors. Prints one JSON line: count, seconds, rps and latency percentiles
 * in milliseconds, plus each request's send time (epoch ms, sub-millisecond) when asked with
 * BENCH_SEND_TIMES=1.
 */
const [url, totalArg, concurrencyArg, rateArg = '0', keyPrefix = ''] = process.argv.slice(2)
const duration = totalArg.endsWith('s') ? Number(totalArg.slice(0, -1)) * 1000 : 0
const total = duration > 0 ? Number.POSITIVE_INFINITY : Number(totalArg)
const concurrency = Number(concurrencyArg)
const rate = Number(rateArg)
const now = () => performance.timeOrigin + performance.now()

const latencies: number[] = []
const sendTimes: number[] = []
const runIds: string[] = []
let next = 0
let errors = 0
/** Answered 429 (the backlog is full): counted apart from errors, and not retried. */
let refused = 0
const started = now()

async function one(i: number) {
  if (rate > 0) {
    const due = started + (i * 1000) / rate
    const wait = due - now()
    if (wait > 0) await Bun.sleep(wait)
  }
  const t0 = now()
  sendTimes[i] = t0
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(keyPrefix ? { 'idempotency-key': `${keyPrefix}${i}` } : {}) },
      body: JSON.stringify({ i, order: { id: `A-${i}`, amount: 4200, currency: 'usd' } }),
    })
    const text = await response.text()
    latencies.push(now() - t0)
    if (response.status === 429) refused++
    else if (response.status !== 200) errors++
    else if (process.env.BENCH_SEND_TIMES) runIds[i] = JSON.parse(text).data?.runIds?.[0] ?? ''
  } catch (error) {
    errors++
    if (errors <= 3) console.error(`request ${i} failed: ${error}`)
  }
}

await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < total && (duration === 0 || now() - started < duration)) await one(next++)
  }),
)
const seconds = (now() - started) / 1000
latencies.sort((a, b) => a - b)
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]
const out: Record<string, unknown> = {
  count: latencies.length,
  accepted: latencies.length - errors - refused,
  refused,
  errors,
  seconds,
  rps: latencies.length / seconds,
  p50: pct(50),
  p90: pct(90),
  p99: pct(99),
  max: latencies.at(-1),
}
if (process.env.BENCH_SEND_TIMES) {
  out.sendTimes = sendTimes
  out.runIds = runIds
}
console.log(JSON.stringify(out))
export {}
