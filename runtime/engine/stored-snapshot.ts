/**
 * A run's state as the `runs.snapshot` column stores it: the actor's persisted snapshot (whose
 * `context` is the RunState) less what the run's row already keeps, and read back whole.
 */
import type { TriggerEvent } from '../../core/ports/engine.ts'
import type { NodeInstance, RunState } from './state.ts'

/** What storing a run actor's snapshot reads of it. */
export interface RunSnapshotParts {
  readonly status: string
  readonly value: unknown
  readonly context: RunState
  readonly output?: unknown
  readonly error?: unknown
  readonly children: { readonly [id: string]: { readonly src: unknown; getPersistedSnapshot(): unknown } | undefined }
}

/** An invoked node's persisted snapshot: its input is the run's state (and a resume's event). */
type PersistedNode = { input?: { state?: RunState } & Record<string, unknown> } & Record<string, unknown>

/**
 * A run actor's snapshot in XState's persisted shape, made without XState's getPersistedSnapshot,
 * which walks the whole context for actor references (a run's context holds none) and keeps an
 * invoked node's input, the run's state, a second time. Here the context is the snapshot's own
 * (a RunState is never changed in place) and an invoked node's input keeps only what is not the
 * run's state (a resume's event): `restoreSnapshot` puts the state back, from the context.
 */
export function persistedRun(snapshot: RunSnapshotParts): unknown {
  const children: Record<string, unknown> = {}
  for (const id in snapshot.children) {
    const child = snapshot.children[id]
    if (!child) continue
    const persisted = child.getPersistedSnapshot() as PersistedNode
    let node = persisted
    if (persisted?.input?.state) {
      const { state: _, ...input } = persisted.input
      node = { ...persisted, input }
    }
    children[id] = { snapshot: node, src: child.src, syncSnapshot: false }
  }
  return {
    status: snapshot.status,
    value: snapshot.value,
    historyValue: {},
    context: snapshot.context,
    children,
    output: snapshot.output,
    error: snapshot.error,
  }
}

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
 * A stored snapshot, parsed, with its trigger event (the row's `trigger_event`) back in place,
 * and the run's state back in an invoked node's input (see persistedRun). A snapshot stored
 * whole (before storedSnapshot and persistedRun) is answered as it is.
 */
export function restoreSnapshot(snapshot: string, triggerEvent: string | null | undefined): { context: RunState } {
  const parsed = JSON.parse(snapshot) as { context: RunState; children?: Record<string, { snapshot?: PersistedNode }> }
  const context = parsed?.context as { -readonly [K in keyof RunState]: RunState[K] } | undefined
  if (context && context.trigger === undefined && triggerEvent) {
    const trigger = JSON.parse(triggerEvent) as TriggerEvent
    context.trigger = trigger
    const node = context.nodes?.[context.triggerNodeId] as (NodeInstance & { result?: unknown }) | undefined
    if (node && !('result' in node)) node.result = trigger
  }
  for (const id in parsed?.children) {
    const input = parsed.children[id]?.snapshot?.input
    if (input && context && !('state' in input)) input.state = context
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
