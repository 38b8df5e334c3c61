/**
 * The durable timer scheduler. Timers are rows (a delay's wake-up, a wait's timeout); firing
 * one deletes its row and puts a TIMER event in the run's inbox in one transaction, so across
 * any number of processes each timer fires exactly once: only the transaction whose DELETE
 * removed the row goes on. The run is then woken to take the event.
 *
 * It polls for due timers, and sleeps until the next one when it knows of it sooner (a
 * `node.waiting` event on the bus tells it of new ones).
 */
import { runInbox, runTimers } from '../core/store/run-side.ts'
import type { Bus } from '../core/ports/bus.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { Ids } from '../core/ports/ids.ts'
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'
import type { RecordedEvent } from '../core/domain-events.ts'
import { createWakeLoop } from './wake-loop.ts'

export interface DurableTimersDeps {
  store: Store
  bus: Bus
  clock: Clock
  ids: Ids
  logger: Logger
  /** Tells whoever executes runs that one has an inbox event. */
  wake(runId: string): void
  pollMs?: number
  batch?: number
}

export interface DurableTimers {
  start(): void
  /** Fires what is due now; resolves to the number fired. */
  tick(): Promise<number>
  stop(): Promise<void>
}

interface TimerRow {
  id: string
  run_id: string
  node_key: string
  kind: string
  fire_at: number
}

export function createDurableTimers(deps: DurableTimersDeps): DurableTimers {
  const pollMs = deps.pollMs ?? 500
  const batch = deps.batch ?? 500
  let running: Promise<number> | null = null
  const loop = createWakeLoop({ clock: deps.clock, pollMs, tick: () => tick() })
  let subscription: { unsubscribe(): void } | null = null

  async function fire(row: TimerRow): Promise<boolean> {
    return deps.store.write(async (tx) => {
      if ((await runTimers.claim(tx, row.id)) === 0) return false
      await runInbox.add(tx, {
        id: deps.ids.next('evt'),
        runId: row.run_id,
        event: JSON.stringify({ type: 'TIMER', key: row.node_key, kind: row.kind }),
        at: deps.clock.now(),
      })
      return true
    })
  }

  async function tick(): Promise<number> {
    if (running) return running
    running = (async () => {
      let fired = 0
      try {
        const due = await runTimers.due(deps.store, deps.clock.now(), batch)
        const results = await Promise.all(due.map((row) => fire(row).then((ok) => (ok ? row : null))))
        for (const row of results) {
          if (!row) continue
          fired++
          deps.wake(row.run_id)
        }
        const next = await runTimers.nextAt(deps.store)
        loop.setNext(due.length === batch ? deps.clock.now() : (next ?? Number.POSITIVE_INFINITY))
      } catch (error) {
        deps.logger.error('timer scheduler tick failed', { error: String(error) })
        // Wait a poll before trying again rather than spinning on a due timer (the store may be down).
        loop.setNext(Math.max(loop.next, deps.clock.now() + pollMs))
      } finally {
        running = null
      }
      return fired
    })()
    return running
  }

  return {
    start() {
      subscription = deps.bus.subscribe<RecordedEvent>('evt.>', (m) => {
        if (m.data.type !== 'node.waiting') return
        const wait = m.data.data.wait as { until?: number; timeoutMs?: number; startedAt: number } | undefined
        const at = Math.min(
          wait?.until ?? Number.POSITIVE_INFINITY,
          wait?.timeoutMs !== undefined ? wait.startedAt + wait.timeoutMs : Number.POSITIVE_INFINITY,
        )
        loop.dueAt(at)
      })
      loop.start()
    },
    tick,
    async stop() {
      subscription?.unsubscribe()
      loop.stop()
      await running
    },
  }
}
