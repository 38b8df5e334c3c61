/**
 * Organizations' fair shares as the start queue reads them, at every pick, without waiting: the
 * weights operators set (`orgs set --fair-share`) read from the store now and then (at most every
 * REFRESH_MS, on a read that finds them older), 1 for every organization not listed.
 */
import type { Clock } from '../../core/ports/clock.ts'
import type { Logger } from '../../core/ports/logger.ts'
import type { Store } from '../../core/ports/store.ts'
import { fairShares } from '../../core/store/flow-control.ts'

/** How old the weights may get before a read asks the store again. */
const REFRESH_MS = 10_000

export interface FairShareCache {
  /** An organization's weight as last read (1 until then, or when it has none of its own). */
  of(organizationId: string): number
  /** Reads the weights now. */
  refresh(): Promise<void>
}

export function createFairShareCache(deps: { store: Store; clock: Clock; logger: Logger }): FairShareCache {
  let weights = new Map<string, number>()
  let readAt = Number.NEGATIVE_INFINITY
  let reading: Promise<void> | null = null
  const refresh = () => {
    reading ??= fairShares
      .weighted(deps.store)
      .then(
        (read) => {
          weights = read
        },
        (error) => deps.logger.warn('could not read the organizations’ fair shares', { error: String(error) }),
      )
      .finally(() => {
        readAt = deps.clock.now()
        reading = null
      })
    return reading
  }
  void refresh()
  return {
    of(organizationId) {
      if (deps.clock.now() - readAt > REFRESH_MS) void refresh()
      return weights.get(organizationId) ?? 1
    },
    refresh,
  }
}
