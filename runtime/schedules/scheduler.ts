/**
 * The schedule scheduler: fires the ticks of `cronjob` and `schedule` triggers (and of any
 * plugin trigger with a `schedule`), exactly once each across every process and restart.
 *
 * Exactly once: claiming a tick and admitting its run happen in ONE store transaction. The
 * claim is a conditional UPDATE that moves the row's next tick (`… WHERE id = $1 AND
 * next_fire_at = $due`); only the transaction that changed the row admits the run, and both
 * commit together or not at all. Two schedulers racing on one tick: one UPDATE changes the row,
 * the other changes nothing (Postgres re-checks the condition after the first commits; SQLite
 * has one writer) and starts nothing. A crash before the commit leaves the tick due, so the
 * next scheduler fires it; a crash after it has the run admitted, and recovery executes it.
 * The run's idempotency key (`schedule:<scheduleId>:<tick>`) would refuse a second run for the
 * same tick even if a claim were ever repeated. The workflow row is locked before the schedule
 * row, the order every writer of both uses.
 *
 * Missed ticks (due while no scheduler ran) follow the trigger's catch-up policy; see plan.ts.
 * It polls for due ticks and sleeps until the next one when that is sooner.
 */
import type { RecordedEvent } from '../../core/domain-events.ts'
import type { Bus } from '../../core/ports/bus.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { Store } from '../../core/ports/store.ts'
import type { TriggerSchedule } from '../../core/plugin/sdk.ts'
import { type ScheduleRow, schedules } from '../../core/store/schedules.ts'
import type { EngineDispatcher } from '../engine/types.ts'
import { createWakeLoop } from '../wake-loop.ts'
import type { Reconciler } from './reconcile.ts'
import { BoundedMap } from '../../core/bounded-map.ts'
import { type StepDeps, type StepOutcome, stepSchedule } from './step.ts'

export type { StepOutcome } from './step.ts'

export interface ScheduleTickerDeps {
  store: Store
  bus: Bus
  clock: Clock
  logger: Logger
  dispatcher: EngineDispatcher
  reconciler: Reconciler
  /** How late a tick may fire and still be on time (AUTOMATON_SCHEDULE_GRACE_MS). */
  graceMs: number
  pollMs?: number
  batch?: number
}

/** The scheduler of one process: fires due ticks, woken by workflow events and its own timer. */
export interface ScheduleTicker {
  /** Fires what is due now; resolves to the number of runs started. Calls run one after another. */
  tick(): Promise<number>
  /** Fires, skips or parks one row's due tick, as of `now`. */
  step(row: ScheduleRow, now: number): Promise<StepOutcome>
  /** Reconciles every workflow that has, or should have, schedule rows (at start); resolves to how many. */
  reconcileAll(): Promise<number>
  /** Listens for workflow events and starts the timer. */
  start(): void
  /** Stops listening and the timer; resolves once the tick under way ended. */
  stop(): Promise<void>
}

const WAKING_EVENTS = new Set(['workflow.published', 'workflow.resumed', 'workflow.refilled', 'workflow.unarchived'])

export function createScheduleTicker(deps: ScheduleTickerDeps): ScheduleTicker {
  const pollMs = deps.pollMs ?? 1000
  const batch = deps.batch ?? 200
  const cache = new BoundedMap<string, TriggerSchedule | null>(10_000)
  const loop = createWakeLoop({ clock: deps.clock, pollMs, tick: () => tick() })
  let chain: Promise<number> = Promise.resolve(0)
  let subscription: { unsubscribe(): void } | null = null

  function scheduleOf(row: ScheduleRow): TriggerSchedule | null {
    const key = `${row.trigger_type}\u0000${row.config}`
    if (!cache.has(key)) {
      cache.set(key, deps.reconciler.scheduleOf(row.trigger_type, row.config))
    }
    return cache.get(key)!
  }

  const stepDeps: StepDeps = { ...deps, scheduleOf }
  const step = (row: ScheduleRow, now: number) => stepSchedule(stepDeps, row, now)

  async function run(): Promise<number> {
    let fired = 0
    const now = deps.clock.now()
    let failed = false
    try {
      // A step may leave its row due again (the next missed tick to catch up, or the on-time
      // tick after skipped ones): go round until nothing due moves, a few rounds at most.
      for (let round = 0, moved = true; moved && round < 20; round++) {
        const due = await schedules.due(deps.store, now, batch)
        const outcomes = await Promise.all(
          due.map((row) =>
            step(row, now).catch((error) => {
              failed = true
              deps.logger.error('schedule tick failed', { scheduleId: row.id, error: String(error) })
              return 'lost' as StepOutcome
            }),
          ),
        )
        fired += outcomes.filter((o) => o === 'fired').length
        moved = !failed && outcomes.some((o) => o === 'fired' || o === 'skipped' || o === 'stale')
      }
      loop.setNext((await schedules.nextDue(deps.store)) ?? Number.POSITIVE_INFINITY)
    } catch (error) {
      failed = true
      deps.logger.error('schedule scheduler tick failed', { error: String(error) })
    }
    // After a failure, wait a poll before trying again rather than spinning on a due tick.
    if (failed) loop.setNext(Math.max(loop.next, deps.clock.now() + pollMs))
    return fired
  }

  /** Fires what is due now; resolves to the number of runs started. Calls run one after another. */
  function tick(): Promise<number> {
    chain = chain.then(run, run)
    return chain
  }

  return {
    tick,
    step,
    async reconcileAll(): Promise<number> {
      const ids = await deps.reconciler.candidates(deps.store)
      await Promise.all(ids.map((id) => deps.store.write((tx) => deps.reconciler.reconcile(tx, id))))
      return ids.length
    },
    start() {
      subscription = deps.bus.subscribe<RecordedEvent>('evt.>', (m) => {
        if (WAKING_EVENTS.has(m.data.type)) loop.dueAt(deps.clock.now())
      })
      loop.start()
      loop.dueAt(deps.clock.now())
    },
    async stop() {
      subscription?.unsubscribe()
      loop.stop()
      await chain
    },
  }
}
