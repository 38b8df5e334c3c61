/**
 * The admission backlog: runs admitted (stored, answered 202) and not started yet. It is bounded
 * so that a burst far above what the workers execute cannot grow memory or latency without end:
 * past the installation's bound, or past an organization's share of it, triggers and API runs
 * answer 429 with a Retry-After estimated from how fast the backlog drains. Nothing already
 * accepted is ever dropped, and runs started by runs (sub-workflows) and by schedules are not
 * refused: they are the work the backlog is there to finish.
 *
 * Where the count comes from depends on the role: a process that executes its own admissions
 * (embedded) counts its executor's queue exactly; an API process, whose runs wait for workers
 * elsewhere, counts unstarted runs in the store a few times a second and adds what it admitted
 * since.
 */
import { tooManyRequests } from '../core/errors.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'
import { runs } from '../core/store/runs.ts'
import type { Backlog } from './engine/types.ts'

export interface BacklogSource {
  /** Unstarted runs in all, and of one organization. */
  total(): number
  of(organizationId: string): number
  /** Runs that left the backlog (started) since the source began counting. */
  started(): number
  /** A run this process just admitted (sources that count themselves ignore it). */
  admitted(organizationId: string): void
  stop(): void
}

export interface BacklogLimits {
  /** The installation's bound (AUTOMATON_MAX_BACKLOG). */
  max: number
  /** The share of it one organization may hold, in percent (AUTOMATON_MAX_BACKLOG_ORG_SHARE). */
  orgSharePercent: number
}

export function createBacklog(deps: { source: BacklogSource; limits: BacklogLimits; clock: Clock }): Backlog {
  const { source, limits, clock } = deps
  const perOrganizationMax = Math.max(1, Math.floor((limits.max * limits.orgSharePercent) / 100))
  // The drain rate: starts counted at a few instants, compared over about ten seconds.
  const samples: Array<{ at: number; started: number }> = []
  const drainPerSecond = () => {
    const now = clock.now()
    const started = source.started()
    samples.push({ at: now, started })
    while (samples.length > 2 && now - samples[1].at >= 10_000) samples.shift()
    if (samples.length > 64) samples.splice(1, samples.length - 64)
    const first = samples[0]
    const seconds = (now - first.at) / 1000
    return seconds > 0.5 ? (started - first.started) / seconds : 0
  }
  const retryAfter = (excess: number) => {
    const rate = drainPerSecond()
    // Long enough for the excess (and a little more) to drain; between 1 s and a minute.
    const seconds = rate > 0 ? Math.ceil((excess + 1) / rate) : 5
    return Math.min(60, Math.max(1, seconds))
  }
  return {
    check(organizationId) {
      const total = source.total()
      if (total >= limits.max) {
        throw tooManyRequests(
          'the service is at its backlog of runs not started yet; retry later',
          retryAfter(total - limits.max),
        )
      }
      const own = source.of(organizationId)
      if (own >= perOrganizationMax) {
        throw tooManyRequests(
          'this organization is at its share of the backlog of runs not started yet; retry later',
          retryAfter(own - perOrganizationMax),
        )
      }
    },
    admitted(organizationId) {
      source.admitted(organizationId)
    },
    report() {
      return {
        total: source.total(),
        max: limits.max,
        perOrganizationMax,
        drainPerSecond: Math.round(drainPerSecond() * 10) / 10,
      }
    },
    stop() {
      source.stop()
    },
  }
}

/** The count of a process that executes the runs it admits: its executor's queue, exactly. */
export function executorBacklogSource(
  backlog: () => { total: number; of(organizationId: string): number; started: number },
): BacklogSource {
  return {
    total: () => backlog().total,
    of: (organizationId) => backlog().of(organizationId),
    started: () => backlog().started,
    admitted() {},
    stop() {},
  }
}

/**
 * The count of an API process: unstarted runs in the store (running, never flushed), read every
 * `pollMs`, plus the runs admitted here since the last read.
 */
export function storeBacklogSource(deps: { store: Store; logger: Logger; pollMs?: number }): BacklogSource {
  let byOrg = new Map<string, number>()
  let total = 0
  let started = 0
  // Admitted here since the last read began, and admitted before it began (the read may not see them yet).
  let fresh = new Map<string, number>()
  let inFlight = new Map<string, number>()
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0)
  let reading = false
  const read = async () => {
    if (reading) return
    reading = true
    inFlight = fresh
    fresh = new Map()
    const previousTotal = total
    try {
      const rows = await runs.unstartedByOrganization(deps.store)
      const next = new Map<string, number>()
      let count = 0
      for (const r of rows) {
        next.set(r.organization_id, Number(r.n))
        count += Number(r.n)
      }
      // What left the backlog: what was there, plus what came in, minus what is there now.
      started += Math.max(0, previousTotal + sum(inFlight) - count)
      byOrg = next
      total = count
    } catch (error) {
      for (const [org, n] of inFlight) fresh.set(org, (fresh.get(org) ?? 0) + n)
      deps.logger.warn('could not count the backlog of runs', { error: String(error) })
    } finally {
      inFlight = new Map()
      reading = false
    }
  }
  void read()
  const timer = setInterval(read, deps.pollMs ?? 250)
  ;(timer as { unref?: () => void }).unref?.()
  return {
    total: () => total + sum(inFlight) + sum(fresh),
    of: (organizationId) =>
      (byOrg.get(organizationId) ?? 0) + (inFlight.get(organizationId) ?? 0) + (fresh.get(organizationId) ?? 0),
    started: () => started,
    admitted(organizationId) {
      fresh.set(organizationId, (fresh.get(organizationId) ?? 0) + 1)
    },
    stop() {
      clearInterval(timer)
    },
  }
}
