/**
 * The fault suite with the full load: every scenario of tests/faults/scenarios.ts (Postgres
 * restarted and stopped under two `serve` and under API + two workers, NATS killed and wiped, a
 * worker frozen past its timeout, kill -9 of the embedded server, a full disk under it), each on
 * dependencies of its own, under about 60 runs a second sent as a client would (API runs with
 * their own run id and webhooks with an Idempotency-Key, resent until answered 2xx). It prints,
 * per scenario, how soon every process was ready after the dependency's return and how soon every
 * run sent before the return had ended, against the targets (5 s and 30 s), with duplicates,
 * lost runs and any broken promise in the note. The processes keep their default heartbeat
 * (3 s) and worker timeout (15 s).
 *   bun bench/faults.ts [scenario …]
 */
import { loadavg } from 'node:os'
import type { Result } from './store-writes.ts'
import { brokenPromises } from '../tests/faults/promises.ts'
import { missing, runScenario, type Scenario, SCENARIOS, scenario, TARGETS } from '../tests/faults/scenarios.ts'
import { tmpfsRefusal } from '../tests/helpers/tmpfs.ts'

const seconds = (ms: number | null) => (ms === null ? 'never' : `${(ms / 1000).toFixed(1)} s`)

async function measure(s: Scenario, scale: number): Promise<Result[]> {
  const lacking = missing(s.needs) ?? (s.needs.includes('tmpfs') ? await tmpfsRefusal() : null)
  if (lacking) {
    console.warn(`!!! fault scenario ${s.name} skipped: this machine lacks ${lacking}`)
    return []
  }
  const loadBefore = loadavg()[0]
  const result = await runScenario(s, {
    rate: Math.max(5, Math.round(60 * scale)),
    warmMs: Math.max(3_000, 10_000 * scale),
    afterMs: Math.max(3_000, 10_000 * scale),
    drainMs: 120_000,
  })
  const { verdict: v, window } = result
  const broken = brokenPromises(result)
  const during = v.outage.attempts
    ? `; answers during the fault: ${Object.entries(v.outage.byStatus)
        .map(([status, n]) => `${n} × ${status}`)
        .join(', ')}`
    : ''
  const ready = v.readiness.map((r) => `${r.name} ${seconds(r.readyAfterReturnMs)}`).join(', ')
  const figure = (ms: number | null) => (ms === null ? Number.NaN : Math.round(ms / 100) / 10)
  return [
    {
      name: `fault: ${s.title}: every process ready after the return`,
      value: figure(v.times.readyAfterReturnMs),
      unit: 's',
      note: [
        `target ≤ ${seconds(TARGETS.readyAfterReturnMs)}; ${ready}; the fault lasted ${seconds(window.returnAt - window.faultAt)}`,
        `first request accepted ${seconds(v.times.acceptedAfterReturnMs)} after the return${during}`,
        `the load's own event loop lagged ${result.clientLagMs} ms at most`,
        `machine load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after`,
      ].join('; '),
    },
    {
      name: `fault: ${s.title}: every accepted run ended after the return`,
      value: figure(v.times.endedAfterReturnMs),
      unit: 's',
      note: [
        `target ≤ ${seconds(TARGETS.endedAfterReturnMs)}; ${seconds(v.times.endedAfterFaultMs)} after the fault`,
        `${v.accepted.toLocaleString('en')} of ${v.sent.toLocaleString('en')} runs accepted`,
        `duplicate node calls ${v.duplicates.nodes}${s.crash ? ' (allowed: a crash, same idempotency key)' : ''}`,
        `lost ${v.runs.lost.length + v.runs.notEnded.length}`,
        broken.length ? `BROKEN: ${broken.join(' | ')}` : 'every promise kept',
      ].join('; '),
    },
  ]
}

export async function run(options: { scale?: number; only?: string[] } = {}): Promise<Result[]> {
  const chosen = options.only?.length ? options.only.map(scenario) : SCENARIOS
  const results: Result[] = []
  for (const s of chosen) results.push(...(await measure(s, options.scale ?? 1)))
  return results
}

if (import.meta.main) {
  for (const r of await run({ only: process.argv.slice(2) })) console.log(`${r.name}: ${r.value} ${r.unit} (${r.note})`)
}
