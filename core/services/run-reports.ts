/**
 * Counting runs: by status, and the failure rate over a time range. Runs pruned by retention
 * still count, from the daily roll-ups retention keeps (by the UTC day they started, for status
 * counts, and finished, for the failure rate).
 */
import { RUN_STATUSES } from '../domain/run.ts'
import { badRequest } from '../errors.ts'
import type { Store } from '../ports/store.ts'
import { retention } from '../store/retention.ts'
import { runs } from '../store/runs.ts'
import type { Principal } from './auth.ts'

const MAX_RANGE_MS = 365 * 24 * 60 * 60 * 1000

/** The counting operations of the run service. */
export function reportOperations(store: Store) {
  return {
    async statusCounts(caller: Principal, filter: { workflowId?: string; since?: number; until?: number }) {
      // Runs still stored, and those pruned by retention (counted by the UTC day they started).
      const [rows, pruned] = await Promise.all([
        runs.statusCounts(store, caller.organizationId, filter),
        retention.rolledUpByStatus(store, caller.organizationId, filter),
      ])
      const counts = Object.fromEntries(RUN_STATUSES.map((s) => [s, 0])) as Record<string, number>
      let total = 0
      for (const r of [...rows, ...pruned]) {
        counts[r.status] = (counts[r.status] ?? 0) + Number(r.n)
        total += Number(r.n)
      }
      return { total, counts }
    },

    /** Runs that finished in [from, to]: failed and partial counts and the failure percentage. */
    async failureRate(caller: Principal, from: number, to: number) {
      const problems = []
      if (to < from) problems.push({ path: '/to', message: 'must not be before from' })
      if (to - from > MAX_RANGE_MS) problems.push({ path: '/to', message: 'must be at most 365 days after from' })
      if (problems.length) throw badRequest('invalid time range', problems)
      // Pruned runs count by the UTC day they finished.
      const rows = [
        ...(await runs.finishedBetween(store, caller.organizationId, from, to)),
        ...(await retention.rolledUpFinishedBetween(store, caller.organizationId, from, to)),
      ]
      const n = (status: string) => rows.filter((r) => r.status === status).reduce((sum, r) => sum + Number(r.n), 0)
      const total = n('success') + n('partial') + n('failure')
      const failed = n('failure')
      return {
        total,
        failed,
        partial: n('partial'),
        failureRate: total === 0 ? 0 : Math.round((failed / total) * 10_000) / 100,
      }
    },
  }
}
