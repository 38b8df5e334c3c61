/**
 * The runs waiting to start in one executor, first in first out, each once: a run queued again
 * while it waits stays where it is (an inbox wake is kept on it). It counts what the admission
 * backlog reports: the runs waiting, per organization, and how many have left it.
 *
 * Fresh runs keep their payload (trigger event, variables, definition) so that they start
 * without a database read, the first MAX_FRESH_QUEUED of them. Beyond that a burst would hold
 * them all in memory: the rest wait by id and are read back from the store, where they are
 * already committed. A thousand covers what a process queues at a steady load; a backlog of tens
 * of thousands is mostly ids (about 30 MB less at 50,000 queued than with ten thousand payloads).
 */
import { createFifo } from './fifo.ts'
import type { FreshRun } from './types.ts'

const MAX_FRESH_QUEUED = 1_000

export interface Queued {
  runId: string
  /** Known for admitted runs, kept when the payload is not: the backlog is counted per organization. */
  organizationId?: string
  fresh?: FreshRun
  /** Called once the run started here or needs nothing; with the error when the store failed as it started. */
  taken?: (error?: unknown) => void
  /** Inbox events arrived while a fresh run waited in the queue: read them once it starts. */
  woken?: boolean
}

export interface ExecutorBacklog {
  readonly total: number
  /** Queued runs of one organization (runs queued by id only, from recovery, count in the total alone). */
  of(organizationId: string): number
  /** Runs started since the process began: the drain rate is its derivative. */
  readonly started: number
}

export function createStartQueue() {
  const order = createFifo<Queued>()
  const byId = new Map<string, Queued>()
  const byOrg = new Map<string, number>()
  let freshCount = 0
  let started = 0
  const countOrg = (organizationId: string | undefined, delta: number) => {
    if (organizationId === undefined) return
    const n = (byOrg.get(organizationId) ?? 0) + delta
    if (n > 0) byOrg.set(organizationId, n)
    else byOrg.delete(organizationId)
  }
  return {
    get length() {
      return order.length
    },
    has: (runId: string) => byId.has(runId),
    /** Whether a fresh run queued now keeps its payload. */
    keepsPayload: () => freshCount < MAX_FRESH_QUEUED,
    /** Queues a run; false when it already waits (then it only takes the wake). */
    add(item: Queued): boolean {
      const waiting = byId.get(item.runId)
      if (waiting) {
        if (item.woken) waiting.woken = true
        return false
      }
      byId.set(item.runId, item)
      order.push(item)
      countOrg(item.organizationId, 1)
      if (item.fresh) freshCount++
      return true
    },
    /** The run to start next, out of the queue. */
    next(): Queued | undefined {
      const item = order.shift()
      if (!item) return undefined
      byId.delete(item.runId)
      countOrg(item.organizationId, -1)
      if (item.fresh) freshCount--
      started++
      return item
    },
    backlog(): ExecutorBacklog {
      return { total: order.length, of: (organizationId) => byOrg.get(organizationId) ?? 0, started }
    },
    clear() {
      order.clear()
      byId.clear()
      byOrg.clear()
      freshCount = 0
    },
  }
}
