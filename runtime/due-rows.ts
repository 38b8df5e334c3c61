/**
 * The loop of a process that works through due rows of its own (the poller, the subscription
 * keeper): each round handles every due row at once, then plans the next round at the earliest
 * row still due (or a loop period later after a failure); rounds never overlap; workflow events
 * that make rows due wake it at once; stopping aborts the calls in flight and waits for the round.
 */
import type { RecordedEvent } from '../core/domain-events.ts'
import { errorMessage } from '../core/errors.ts'
import type { Bus } from '../core/ports/bus.ts'
import type { Clock } from '../core/ports/clock.ts'
import type { Logger } from '../core/ports/logger.ts'
import { createWakeLoop } from './wake-loop.ts'

export interface DueRowsDeps<R> {
  clock: Clock
  bus: Bus
  logger: Logger
  /** What the loop works on, for its log lines (`the poller`). */
  name: string
  /** How often it looks for rows it heard nothing of (default 1 s). */
  loopMs?: number
  /** Workflow events after which rows may be due at once. */
  wakingEvents: ReadonlySet<string>
  due(now: number): Promise<R[]>
  /** Handles one row; answers how much it did (runs started, calls made). */
  handle(row: R, signal: AbortSignal): Promise<number>
  /** The earliest time a row is due, or null when none is. */
  nextDue(): Promise<number | null>
  describe(row: R): Record<string, unknown>
}

export interface DueRows {
  /** Works through what is due now; resolves to what the round did. Rounds run one after another. */
  tick(): Promise<number>
  /** Something became due now. */
  wake(): void
  start(): void
  stop(): Promise<void>
}

export function createDueRows<R>(deps: DueRowsDeps<R>): DueRows {
  const loopMs = deps.loopMs ?? 1000
  const stopping = new AbortController()
  const loop = createWakeLoop({ clock: deps.clock, pollMs: loopMs, tick: () => tick() })
  let chain: Promise<number> = Promise.resolve(0)
  let subscription: { unsubscribe(): void } | null = null

  async function round(): Promise<number> {
    try {
      const due = await deps.due(deps.clock.now())
      const done = await Promise.all(
        due.map((row) =>
          deps.handle(row, stopping.signal).catch((error) => {
            deps.logger.error(`${deps.name} could not handle a row`, {
              ...deps.describe(row),
              error: errorMessage(error),
            })
            return 0
          }),
        ),
      )
      loop.setNext((await deps.nextDue()) ?? Number.POSITIVE_INFINITY)
      return done.reduce((sum, n) => sum + n, 0)
    } catch (error) {
      deps.logger.error(`${deps.name} could not read its rows`, { error: errorMessage(error) })
      loop.setNext(deps.clock.now() + loopMs)
      return 0
    }
  }

  function tick(): Promise<number> {
    chain = chain.then(round, round)
    return chain
  }

  return {
    tick,
    wake: () => loop.dueAt(deps.clock.now()),
    start() {
      subscription = deps.bus.subscribe<RecordedEvent>('evt.>', (m) => {
        if (deps.wakingEvents.has(m.data.type)) loop.dueAt(deps.clock.now())
      })
      loop.start()
      loop.dueAt(deps.clock.now())
    },
    async stop() {
      subscription?.unsubscribe()
      loop.stop()
      stopping.abort(new Error('the process is stopping'))
      await chain.catch(() => 0)
    },
  }
}
