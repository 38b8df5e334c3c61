/**
 * The publish guard for time-based triggers: a live version may not tick more often than the
 * minimum interval (AUTOMATON_MIN_SCHEDULE_INTERVAL_MS). The smallest gap among the next
 * occurrences decides, so a rule that fires twice in a row close together (09:00 and 09:00:30
 * each day) is refused like one that fires every 30 seconds.
 */
import type { Definition, WorkflowContent } from '../../core/domain/workflow.ts'
import type { ErrorDetail } from '../../core/errors.ts'
import type { Clock } from '../../core/ports/clock.ts'
import type { Registry } from '../../core/plugin/registry.ts'
import type { PublishGuard } from '../../core/services/workflows.ts'
import { iso } from '../../core/time.ts'
import { triggerIdsOf } from '../engine/plan.ts'

/** Occurrences looked at, from now on, within a time budget (a sparse rule is slow to expand). */
const SAMPLES = 100
const BUDGET_MS = 100

export function createMinIntervalGuard(deps: {
  registry: Registry
  clock: Clock
  minIntervalMs: number
}): PublishGuard {
  return (content: WorkflowContent) => {
    if (deps.minIntervalMs <= 0) return []
    const definition: Definition = content.definition
    const problems: ErrorDetail[] = []
    for (const nodeId of triggerIdsOf(definition)) {
      const node = definition.nodes[nodeId]
      const trigger = node && deps.registry.trigger(node.type, node.typeVersion)
      if (!trigger?.schedule) continue
      let next: (after: number) => number | null
      try {
        next = trigger.schedule(node.payload ?? {}).next
      } catch {
        continue // an invalid configuration is the definition check's to report
      }
      const gap = smallestGap(next, deps.clock.now())
      if (gap && gap.ms < deps.minIntervalMs) {
        problems.push({
          path: `/definition/nodes/${nodeId}/payload`,
          message: `ticks ${seconds(gap.ms)} apart (${iso(gap.from)} and ${iso(gap.to)}); the minimum interval between two ticks is ${seconds(deps.minIntervalMs)}`,
          minIntervalMs: deps.minIntervalMs,
          intervalMs: gap.ms,
        })
      }
    }
    return problems
  }
}

function smallestGap(
  next: (after: number) => number | null,
  now: number,
): { ms: number; from: number; to: number } | null {
  let best: { ms: number; from: number; to: number } | null = null
  let previous = next(now)
  const deadline = performance.now() + BUDGET_MS
  for (let i = 0; i < SAMPLES && previous !== null && (i < 2 || performance.now() < deadline); i++) {
    const following = next(previous)
    if (following === null) break
    if (!best || following - previous < best.ms) best = { ms: following - previous, from: previous, to: following }
    previous = following
  }
  return best
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`)
