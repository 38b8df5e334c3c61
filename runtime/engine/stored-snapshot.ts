/**
 * A run's state as the `runs.snapshot` column stores it: the actor's persisted snapshot (whose
 * `context` is the RunState) less what the run's row already keeps, and read back whole.
 */
import type { TriggerEvent } from '../../core/ports/engine.ts'
import type { NodeInstance, RunState } from './state.ts'

/**
 * The actor's persisted snapshot as the `runs.snapshot` column stores it: without the trigger
 * event, which is the context's `trigger` and its trigger node's result, and which the run's row
 * already keeps once (`trigger_event`). `restoreSnapshot` puts it back. Copies are shallow: the
 * persisted snapshot itself is not changed.
 */
export function storedSnapshot(persisted: unknown): string {
  const snapshot = persisted as { context?: RunState } | null
  const context = snapshot?.context
  if (!context?.trigger) return JSON.stringify(persisted)
  const { trigger, ...rest } = context
  const node = context.nodes[context.triggerNodeId]
  const nodes =
    node?.result === trigger
      ? { ...context.nodes, [context.triggerNodeId]: { ...node, result: undefined } }
      : context.nodes
  return JSON.stringify({ ...snapshot, context: { ...rest, nodes } })
}

/**
 * A stored snapshot, parsed, with its trigger event (the row's `trigger_event`) back in place.
 * A snapshot stored whole (before storedSnapshot) is answered as it is.
 */
export function restoreSnapshot(snapshot: string, triggerEvent: string | null | undefined): { context: RunState } {
  const parsed = JSON.parse(snapshot) as { context: RunState }
  const context = parsed?.context as { -readonly [K in keyof RunState]: RunState[K] } | undefined
  if (context && context.trigger === undefined && triggerEvent) {
    const trigger = JSON.parse(triggerEvent) as TriggerEvent
    context.trigger = trigger
    const node = context.nodes?.[context.triggerNodeId] as (NodeInstance & { result?: unknown }) | undefined
    if (node && !('result' in node)) node.result = trigger
  }
  return parsed
}

/**
 * The run state inside a stored snapshot (the `runs.snapshot` column: the actor's persisted
 * snapshot, whose `context` is the RunState), with the trigger event when it is given;
 * undefined for a run that has none yet.
 */
export function runStateOf(snapshot: string | null | undefined, triggerEvent?: string | null): RunState | undefined {
  if (!snapshot) return undefined
  try {
    return restoreSnapshot(snapshot, triggerEvent)?.context
  } catch {
    return undefined
  }
}
