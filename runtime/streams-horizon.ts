/**
 * The commit horizon of the event journal: the highest id below which every id is visible.
 * Ids increase, but on Postgres transactions commit in any order, so a missing id holds the
 * horizon back until it appears or every transaction that could hold it has ended (it was
 * rolled back and never will); where that cannot be asked, the gap wait bounds the wait.
 * A journal row holds a range of ids; the ids a Postgres row leaves unused in its block are not
 * missing (core/store/journal.ts, nextIdAfter).
 * Waits are on the system's time, not the engine's Clock (see streams.ts).
 */
import type { Logger } from '../core/ports/logger.ts'
import type { Store } from '../core/ports/store.ts'
import { journal, nextIdAfter } from '../core/store/journal.ts'

/** Journal rows read per query. */
export const PAGE = 1000
/** How long after noticing a gap the writers in flight are marked. */
export const MARK_DELAY_MS = 20
/** How often an open gap asks whether its writers have finished. */
const SETTLE_POLL_MS = 50
/** How many journal rows back the horizon starts looking for ids still being committed when it starts. */
const START_WINDOW = 1_000

export interface HorizonDeps {
  store: Store
  logger: Logger
  /** How long a missing id is waited for when the writers cannot be asked. */
  gapWaitMs: number
  /** Called when a gap may have settled: the readers should advance again. */
  wake(): void
}

export interface CommitHorizon {
  /** Moves the horizon over every id now visible, up to the first one still missing; resolves to it. */
  advance(): Promise<number>
  /** Where the horizon stands, or null before it was first advanced (or after `stop`). */
  readonly position: number | null
  /** Whether a missing id holds the horizon back. */
  readonly waiting: boolean
  /** Forgets the horizon and its gap; the next advance starts afresh. */
  stop(): void
}

/** The missing id the horizon waits for: since when, the newest id seen then, and the writers' mark. */
interface Gap {
  after: number
  since: number
  seen: number
  mark?: string | null
}

export function createCommitHorizon(deps: HorizonDeps): CommitHorizon {
  let horizon: number | null = null
  let gap: Gap | null = null
  /** Missing ids at or below this will never appear: every writer that could hold one has finished. */
  let settledThrough = 0
  let gapTimer: ReturnType<typeof setTimeout> | null = null

  async function startHorizon(): Promise<number> {
    // Ids just below the newest may still be committing: start a little back and let them fill in.
    return journal.idBeforeRows(deps.store, START_WINDOW)
  }

  /**
   * Moves the horizon over every id now visible, up to the first one still missing. A missing id
   * is passed once the writers that were in flight when it was noticed have all finished (it was
   * rolled back), or after the gap wait if that cannot be told.
   */
  async function advance(): Promise<number> {
    let at = horizon ?? (await startHorizon())
    for (;;) {
      const rows = await journal.rangesAfter(deps.store, at, PAGE)
      let blocked = false
      for (const { id, n } of rows) {
        if (id > at + 1 && id !== nextIdAfter(at) && id - 1 > settledThrough) {
          const now = Date.now()
          const last = rows[rows.length - 1]
          if (gap?.after !== at) gap = { after: at, since: now, seen: last.id + last.n - 1 }
          if (now - gap.since < deps.gapWaitMs) {
            blocked = true
            break
          }
        }
        at = id + n - 1
        gap = null
      }
      if (blocked && gap && (await settled(gap))) continue
      if (blocked || rows.length < PAGE) break
    }
    horizon = at
    return at
  }

  /**
   * Whether the gap's missing ids are gone for good. Each was taken before the newest id seen
   * when the gap was noticed became visible, so by a transaction in flight then: once a mark of
   * the writers taken a moment later (the moment covers a transaction between taking an id and
   * getting its transaction id) says all of them ended, an id still missing will never appear.
   */
  async function settled(g: Gap): Promise<boolean> {
    try {
      const now = Date.now()
      if (g.mark === undefined) {
        if (now - g.since < MARK_DELAY_MS) {
          wakeAfterGap(g.since + MARK_DELAY_MS - now)
          return false
        }
        g.mark = await journal.writersMark(deps.store)
      }
      if (await journal.writersDone(deps.store, g.mark)) {
        settledThrough = Math.max(settledThrough, g.seen)
        return true
      }
    } catch (error) {
      deps.logger.warn('could not tell whether journal writers finished; waiting out the gap', { error: String(error) })
    }
    wakeAfterGap(Math.min(SETTLE_POLL_MS, Math.max(0, g.since + deps.gapWaitMs - Date.now())))
    return false
  }

  function wakeAfterGap(ms: number) {
    if (gapTimer) return
    gapTimer = setTimeout(() => {
      gapTimer = null
      deps.wake()
    }, ms + 1)
  }

  return {
    advance,
    get position() {
      return horizon
    },
    get waiting() {
      return gap !== null
    },
    stop() {
      horizon = null
      gap = null
      settledThrough = 0
      if (gapTimer) clearTimeout(gapTimer)
      gapTimer = null
    },
  }
}
