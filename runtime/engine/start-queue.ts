/**
 * The runs waiting to start in one executor, each once: a run queued again while it waits stays
 * where it is (an inbox wake is kept on it). Organizations take turns: each has its own lane, and
 * the next runs come from the next organization with runs waiting, as many as its fair share (a
 * weight operators set, 1 by default), so that one organization's 50,000 queued runs hold another's
 * 10 back by at most its weight in runs each (runs queued by id only, from recovery, share one lane
 * of their own). Within an organization its workflows take turns, one run each, so that one
 * workflow's flood does not hold back the others; within a workflow, a run with a higher priority
 * (flowControl) starts first, and every run gains one step per second waited (start-lines.ts). It
 * counts what the admission backlog reports: the runs waiting, per organization, and how many have
 * left it.
 *
 * Fresh runs keep their payload (trigger event, variables, definition) so that they start
 * without a database read, the first MAX_FRESH_QUEUED of them. Beyond that a burst would hold
 * them all in memory: the rest wait by id and are read back from the store, where they are
 * already committed. A thousand covers what a process queues at a steady load; a backlog of tens
 * of thousands is mostly ids (about 30 MB less at 50,000 queued than with ten thousand payloads).
 */
import { createFifo } from './fifo.ts'
import { type OrganizationLane, returnLane, takeLane } from './start-lines.ts'
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
  /** Known for admitted runs: an organization's workflows take turns. */
  workflowId?: string
  /** Its flow control's priority, −100 to 100 (absent: 0): higher starts first within its workflow. */
  priority?: number
  /** When it began to wait for its start, for its age (a run a flow-control release let go: its admission); absent: now. */
  queuedAt?: number
}

/** Where a run a flow-control release let go waits in the start queue: its organization's and workflow's lines, aged since its admission. */
export type QueuePlace = Pick<Queued, 'organizationId' | 'workflowId' | 'priority' | 'queuedAt'>

/** A run admitted here, as it waits to start: with its payload while `keepPayload`, else by id. */
export function queuedOf(run: FreshRun, keepPayload: boolean): Queued {
  const { runId, organizationId, workflowId } = run.meta
  return keepPayload
    ? { runId, organizationId, workflowId, priority: run.priority, fresh: run }
    : { runId, organizationId, workflowId, priority: run.priority }
}

export interface ExecutorBacklog {
  readonly total: number
  /** Queued runs of one organization (runs queued by id only, from recovery, count in the total alone). */
  of(organizationId: string): number
  /** Runs started since the process began: the drain rate is its derivative. */
  readonly started: number
}

/**
 * One line per organization, and the organizations with runs waiting, in turn: an organization's
 * turn starts as many runs as its fair share (`weightOf`, at least 1), then the next one's comes.
 */
function createFairLines(now: () => number, weightOf: (organizationId: string) => number) {
  const lines = new Map<string, OrganizationLane>()
  const turns = createFifo<string>()
  /** The organization whose turn it is (not in `turns` meanwhile), and the runs its turn has left. */
  let current: { lane: string; left: number } | null = null
  let length = 0
  return {
    get length() {
      return length
    },
    push(item: Queued) {
      const lane = item.organizationId ?? ''
      let line = lines.get(lane)
      if (!line) {
        line = takeLane()
        lines.set(lane, line)
        turns.push(lane)
      }
      line.push(item, (item.queuedAt ?? now()) - (item.priority ?? 0) * 1000)
      length++
    },
    shift(): Queued | undefined {
      if (current && current.left <= 0) {
        turns.push(current.lane)
        current = null
      }
      if (!current) {
        const lane = turns.shift()
        if (lane === undefined) return undefined
        current = { lane, left: lane === '' ? 1 : Math.max(1, weightOf(lane)) }
      }
      const line = lines.get(current.lane)!
      const item = line.shift()
      current.left--
      length--
      if (line.length === 0) {
        lines.delete(current.lane)
        returnLane(line)
        current = null
      }
      return item
    },
    clear() {
      lines.clear()
      turns.clear()
      current = null
      length = 0
    },
  }
}

/**
 * `now`: the clock runs age by while they wait (priority); `weightOf`: an organization's fair
 * share (operators set it, `orgs set --fair-share`; 1 by default).
 */
export function createStartQueue(now: () => number = Date.now, weightOf: (organizationId: string) => number = () => 1) {
  const order = createFairLines(now, weightOf)
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
