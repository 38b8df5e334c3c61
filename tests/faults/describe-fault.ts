/**
 * One CI test per fault scenario (tests/faults/*.test.ts): runs it with a light load and short
 * heartbeats, and expects no broken promise (promises.ts). Skipped with a loud line when this
 * machine lacks what the scenario needs; under CI=true that fails the run instead.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { warnSkipped } from '../helpers/services.ts'
import { tmpfsRefusal } from '../helpers/tmpfs.ts'
import { brokenPromises } from './promises.ts'
import { cleanUpAbandoned, missing, runScenario, type ScenarioOptions, scenario } from './scenarios.ts'

/** The CI subset's load and heartbeats: small enough for two shared cores, long enough to see each promise. */
export const CI_OPTIONS: ScenarioOptions = {
  rate: 30,
  warmMs: 3_000,
  afterMs: 4_000,
  outageMs: 10_000,
  drainMs: 60_000,
  workerTimeoutMs: 4_000,
  heartbeatMs: 500,
}

/** A test's bound: starting the dependencies and processes, the load, the outage, the drain. */
const TEST_TIMEOUT_MS = 150_000

/** Runs the scenario in one test, or skips it loudly (failing under CI=true) when this machine lacks what it needs. */
export async function describeFault(name: string, title: string, options: Partial<ScenarioOptions> = {}) {
  const s = scenario(name)
  const lacking = missing(s.needs) ?? (s.needs.includes('tmpfs') ? await tmpfsRefusal() : null)
  if (lacking) {
    warnSkipped(`the fault suite: ${title}`, `what it needs (${lacking})`)
    return
  }
  describe(`faults: ${title}`, () => {
    // A test that timed out leaves its Postgres, NATS, tmpfs and processes behind: remove them.
    afterAll(cleanUpAbandoned, 120_000)
    it(
      'keeps every promise: no exit, every accepted run ended once, no second run, no duplicate call, 503s and /readyz',
      async () => {
        const result = await runScenario(s, { ...CI_OPTIONS, ...options })
        const broken = brokenPromises(result)
        if (broken.length > 0)
          console.error(`fault scenario ${name} broke promises; the processes' last log lines:\n${result.logs()}`)
        expect(broken).toEqual([])
      },
      TEST_TIMEOUT_MS,
    )
  })
}
