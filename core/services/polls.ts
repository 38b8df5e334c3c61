/**
 * Polling triggers as the API shows them: each trigger instance's cursor, remembered keys and
 * last outcome, and a reset that makes the next poll start afresh. The runtime's poller keeps the
 * rows (runtime/polls); a reset moves the row's fence on, so a poll in flight commits nothing.
 */
import type { PolledTrigger, WorkflowPolls } from '../domain/poll.ts'
import { notFound } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Store } from '../ports/store.ts'
import { type TriggerPollRow, triggerPolls } from '../store/trigger-polls.ts'
import { workflows } from '../store/workflows.ts'
import { iso } from '../time.ts'
import type { Principal } from './auth.ts'
import { guarded } from './operations.ts'

/** The polling triggers of a workflow: read, and reset one. */
export interface PollService {
  get(caller: Principal, workflowId: string): Promise<WorkflowPolls>
  /** Forgets a trigger's cursor and seen keys: its next poll records what is there and starts nothing (unless fireExisting). */
  reset(caller: Principal, workflowId: string, nodeId: string): Promise<PolledTrigger>
}

const RECENT = 20

function toPolled(row: TriggerPollRow): PolledTrigger {
  const seen = JSON.parse(row.seen) as string[]
  return {
    triggerNodeId: row.node_id,
    type: row.trigger_type,
    active: row.active === 1,
    primed: row.primed === 1,
    cursor: row.cursor === null ? null : JSON.parse(row.cursor),
    seenKeys: seen.length,
    recentKeys: seen.slice(-RECENT),
    // Unset strings are "" in answers (the specification's rule); the row keeps null.
    nextPollAt: (row.active === 1 ? iso(row.next_poll_at) : null) ?? '',
    lastPolledAt: iso(row.last_polled_at) ?? '',
    lastItems: Number(row.last_items),
    lastRuns: Number(row.last_runs),
    lastError: row.last_error ?? '',
    failures: Number(row.failures),
  }
}

export function createPollService(deps: { store: Store; clock: Clock }): PollService {
  return guarded(
    'polls',
    { get: ['workflow:read'], reset: ['workflow:update'] },
    {
      async get(caller, workflowId) {
        const w = await workflows.byId(deps.store, caller.organizationId, workflowId)
        if (!w) throw notFound('workflow')
        const rows = await triggerPolls.byWorkflow(deps.store, w.id)
        return { workflowId: w.id, triggers: rows.map(toPolled) }
      },
      async reset(caller, workflowId, nodeId) {
        return deps.store.write(async (tx) => {
          const w = await workflows.lockById(tx, deps.store.dialect, workflowId)
          if (!w || w.organization_id !== caller.organizationId) throw notFound('workflow')
          const row = await triggerPolls.byNode(tx, w.id, nodeId)
          if (!row) throw notFound('trigger')
          await triggerPolls.reset(tx, row.id, deps.clock.now())
          return toPolled((await triggerPolls.get(tx, row.id))!)
        })
      },
    },
  )
}
