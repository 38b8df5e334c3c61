/**
 * The promises a fault must not break, read from a scenario's result: each broken one as a
 * sentence. The CI subset's tests (describe-fault.ts) expect none; the benchmark prints them.
 * Behaviour only, no durations: the times are the benchmark's figures.
 */
import type { ScenarioResult } from './scenarios.ts'

const some = (items: string[]) =>
  items.length > 5 ? `${items.slice(0, 5).join('; ')} … (${items.length} in all)` : items.join('; ')

/**
 * The promises the scenario broke, one sentence each (none: all kept). Collected rather than
 * asserted one by one, so that a failure names every broken promise at once.
 */
export function brokenPromises({ scenario: s, verdict: v, drained }: ScenarioResult): string[] {
  const broken: string[] = []
  const check = (kept: boolean, what: string) => {
    if (!kept) broken.push(what)
  }
  // No process ends because a dependency failed.
  check(
    v.exits.length === 0,
    `processes exited: ${some(v.exits.map((e) => `${e.name} with ${e.code}: …${e.logs.slice(-400)}`))}`,
  )

  // Every request was, in the end, answered 2xx and started its run (the client resent it).
  check(v.gaveUp.length === 0, `${v.gaveUp.length} of ${v.sent} requests were never answered 2xx`)
  check(v.skipped.length === 0, `webhooks answered "skipped": ${some(v.skipped.map((k) => `${k.id} (${k.reason})`))}`)

  // Every accepted run is stored, and ended exactly once, successfully.
  check(v.runs.lost.length === 0, `accepted runs not stored: ${some(v.runs.lost)}`)
  check(drained && v.runs.notEnded.length === 0, `runs not ended when the drain gave up: ${some(v.runs.notEnded)}`)
  check(v.runs.endedTwice.length === 0, `runs ended twice: ${some(v.runs.endedTwice)}`)
  check(
    v.runs.notSuccess.length === 0,
    `runs ended otherwise than success: ${some(v.runs.notSuccess.map((r) => `${r.id} ${r.status} ${r.error}`))}`,
  )

  // Resending with the same run id or Idempotency-Key never made a second run.
  check(v.runs.secondRuns.length === 0, `second runs: ${some(v.runs.secondRuns)}`)

  // A node executes once, unless a process died or froze while executing it (then again, with the same key).
  check(v.duplicates.otherKeys === 0, `${v.duplicates.otherKeys} nodes called again with another idempotency key`)
  check(
    s.crash || v.duplicates.nodes === 0,
    `${v.duplicates.nodes} nodes called twice without a crash: ${some(v.duplicates.examples)}`,
  )

  // During the fault: 2xx (admitted) or 503 with Retry-After and the error body, at once; never 400/500, never a hang.
  const bad = v.outage.bad.map(
    (b) =>
      `${b.status} after ${b.ms} ms${b.retryAfter ? '' : ', no Retry-After'}${b.errorBody ? '' : ', no error body'}`,
  )
  const what = 'answers during the fault were neither 2xx nor a prompt 503 with Retry-After and the error body'
  check(s.down || bad.length === 0, `${bad.length} of ${v.outage.attempts} ${what}: ${some(bad)}`)
  check(
    !s.refuses || v.outage.refusals > 0,
    `no request answered 503 during the fault (${JSON.stringify(v.outage.byStatus)})`,
  )

  // /readyz said 503 while the dependency was away, and 200 once it was back.
  if (s.unready)
    for (const r of v.readiness) check(r.unreadyDuringOutage, `${r.name}'s /readyz never answered 503 during the fault`)
  for (const r of v.readiness)
    check(r.readyAfterReturnMs !== null, `${r.name}'s /readyz never answered 200 after the return`)
  return broken
}
