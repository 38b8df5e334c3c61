/**
 * Fairness between organizations across processes (Postgres and NATS): workers take runs from the
 * shared work queue in the order it got them, so an organization that queued 50,000 runs would
 * hold every later run of another behind them. So an API process puts in the work queue at most
 * `line` runs per organization (times its fair share) not started yet; the rest it holds in the
 * store, status `waiting` with `waitingFor: { reason: "fairness" }`, ranked by admission time less
 * 1 s per step of priority. Workers release held runs into the work queue as their organization's
 * runs start, each organization up to its own line, its workflows in turn, best ranked first.
 * Another organization's runs thus wait behind at most the lines of the others, however much
 * those have held.
 *
 * A run goes to the work queue as before while its organization has fewer runs not started (in
 * the work queue or held) than its line: a workflow whose organization has no backlog costs no
 * statement more. Once it has its line, its next runs are held, behind those held before them. The
 * counts come from the store (the admission backlog's count of runs not started, held ones
 * included, read a few times a second, plus what the process admitted since), so several API
 * processes may together overshoot a line by what they admit between two reads; releases lock the
 * organization's row and count the work queue's runs again, so they never overshoot.
 */
import type { Bus, Subscription } from '../../core/ports/bus.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { Store } from '../../core/ports/store.ts'
import { fairRuns } from '../../core/store/flow-control.ts'
import type { BacklogSource } from '../backlog.ts'
import type { EngineRole, FreshRun } from '../engine/types.ts'
import { createWakeLoop } from '../wake-loop.ts'
import { createFairShareCache, type FairShareCache } from './flow-fair-share.ts'

/** Told to the workers when runs were held: their releases start looking. */
export const FAIR_SUBJECT = 'automaton.internal.fair'
/** How often releases look while runs are held, and at the latest when none are known to be. */
const RELEASE_EVERY_MS = 100
const LOOK_EVERY_MS = 1000

interface FairDeps {
  store: Store
  bus: Bus
  clock: Clock
  logger: Logger
  /** Runs per organization (times its fair share) in the work queue at once. */
  line: number
  shares: FairShareCache
  /** Puts a run in the work queue. */
  notify(runId: string): Promise<void>
}

export interface FairGate {
  /** After the commit: the run goes to the work queue, or waits for its organization's turn. */
  handOff(fresh: FreshRun): void
}

/**
 * The API process's side: holds what is beyond an organization's line. `inLine`: the process's
 * count of runs not started (the admission backlog's), this run already counted.
 */
export function createFairGate(deps: FairDeps, inLine: Pick<BacklogSource, 'of'>): FairGate {
  let holding: { runId: string; rank: number }[] = []
  const flush = async () => {
    const batch = holding
    holding = []
    try {
      const passed = await deps.store.write(async (tx) => {
        const notHeld: string[] = []
        for (const run of batch) if (!(await fairRuns.hold(tx, run.runId, run.rank))) notHeld.push(run.runId)
        return notHeld
      })
      if (passed.length < batch.length) deps.bus.publish(FAIR_SUBJECT, {})
      // A run bounded by its concurrency key goes to the work queue as it is; for a run a worker
      // took meanwhile (its sweep), the message finds it taken and is dropped.
      for (const runId of passed) void deps.notify(runId)
    } catch (error) {
      deps.logger.warn('could not hold runs for their turn; they go to the work queue', { error: String(error) })
      for (const run of batch) void deps.notify(run.runId)
    }
  }
  return {
    handOff(fresh) {
      const { organizationId, runId, startedAt } = fresh.meta
      if (inLine.of(organizationId) <= deps.line * deps.shares.of(organizationId)) {
        void deps.notify(runId)
        return
      }
      if (holding.length === 0) queueMicrotask(() => void flush())
      holding.push({ runId, rank: (startedAt ?? deps.clock.now()) - (fresh.priority ?? 0) * 1000 })
    },
  }
}

export interface FairReleases {
  start(): void
  /** Looks for held runs now (each heartbeat). */
  sweep(): Promise<void>
  stop(): Promise<void>
}

/** The workers' side: puts held runs in the work queue as their organizations' lines have room. */
export function createFairReleases(deps: FairDeps): FairReleases {
  let subscription: Subscription | null = null
  let releasing: Promise<void> | null = null
  const loop = createWakeLoop({
    clock: deps.clock,
    pollMs: LOOK_EVERY_MS,
    async tick() {
      const waiting = await release()
      loop.setNext(waiting > 0 ? deps.clock.now() + RELEASE_EVERY_MS : Number.POSITIVE_INFINITY)
    },
  })

  /** One round over the organizations with held runs; answers how many still wait. */
  async function releaseRound(): Promise<number> {
    let waiting = 0
    for (const [organizationId, held] of await fairRuns.byOrganization(deps.store)) {
      const line = deps.line * deps.shares.of(organizationId)
      const ids = await deps.store.write(async (tx) => {
        await fairRuns.lockOrganization(tx, organizationId)
        const room = line - (await fairRuns.inLine(tx, organizationId))
        return room > 0 ? fairRuns.release(tx, organizationId, room, deps.clock.now()) : []
      })
      for (const id of ids) void deps.notify(id)
      waiting += held - ids.length
    }
    return waiting
  }

  /** One round at a time; a failed one is logged and the next tries again. */
  function release(): Promise<number> {
    const round = (releasing ?? Promise.resolve()).then(() =>
      releaseRound().catch((error) => {
        deps.logger.warn('could not release runs held for their turn; trying again', { error: String(error) })
        return 1
      }),
    )
    releasing = round.then(() => undefined)
    return round
  }

  return {
    start() {
      loop.start()
      subscription = deps.bus.subscribe(FAIR_SUBJECT, () => loop.dueAt(deps.clock.now()))
    },
    async sweep() {
      if ((await release()) > 0) loop.dueAt(deps.clock.now() + RELEASE_EVERY_MS)
    },
    async stop() {
      loop.stop()
      subscription?.unsubscribe()
      await releasing
    },
  }
}

/** Runs per organization in the work queue at once, by default (AUTOMATON_FAIR_SHARE_LINE). */
const DEFAULT_LINE = 1000

/** Fairness as the engine wires it: the fair shares, where an admitted run goes, and the releases. */
export interface Fairness {
  readonly shares: FairShareCache
  /** An API process's hand-off of an admitted run: the work queue, or held for its turn. */
  handOff(fresh: FreshRun): void
  /** A process that executes runs on Postgres releases the runs held for their turn. */
  readonly releases?: FairReleases
}

export function fairness(
  deps: Pick<FairDeps, 'store' | 'bus' | 'clock' | 'logger'> & { role: EngineRole; fairShareLine?: number },
  inLine: Pick<BacklogSource, 'of'> | null,
  notify: (runId: string) => Promise<void>,
): Fairness {
  const shares = createFairShareCache(deps)
  const fairDeps: FairDeps = { ...deps, line: deps.fairShareLine ?? DEFAULT_LINE, shares, notify }
  const gate = inLine && deps.role === 'api' ? createFairGate(fairDeps, inLine) : null
  return {
    shares,
    handOff: (fresh) => (gate ? gate.handOff(fresh) : void notify(fresh.meta.runId)),
    releases: deps.role !== 'api' && deps.store.dialect === 'postgres' ? createFairReleases(fairDeps) : undefined,
  }
}
